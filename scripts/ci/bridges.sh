#!/usr/bin/env bash
# CI setup for the bridges tier: Mono (mcs, mono) for the Unity C# client's tests (test/sdk/unityClient.test.ts).
# Idempotent: does nothing when mcs and mono are already there. Without root or apt it says so and the tests skip loudly.
set -euo pipefail
if command -v mcs >/dev/null 2>&1 && command -v mono >/dev/null 2>&1; then
  echo "bridges: mono present ($(mono --version | head -1))"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bridges: no apt-get; install Mono (mcs, mono) by hand to run the C# client tests" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else echo "bridges: not root and no sudo: cannot install mono-complete" >&2; exit 1; fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends mono-complete >/dev/null
echo "bridges: installed $(mono --version | head -1)"
