#!/usr/bin/env bash
# CI setup for the remote-generation tier (test/generation/**, issue 13): builds llama-server (CPU) from the
# llama.cpp source node-llama-cpp ships (node_modules/node-llama-cpp/llama/gitRelease.bundle), once per version,
# into a cache dir outside the clone (~/.cache/lorehold-llama-server/<version>/build/bin/llama-server).
# Idempotent: when that binary exists it prints its path and exits at once. A first build takes ~17 min on 2 cores.
# Without it the tests skip with a loud warning; a failed setup exits 1 so CI says so.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
LLAMA_DIR="$ROOT/node_modules/node-llama-cpp/llama"
BUNDLE="$LLAMA_DIR/gitRelease.bundle"
if [ ! -f "$BUNDLE" ]; then
  # CI runs the setups before `npm test` installs the packages: install them the same way (frozen lockfile).
  echo "backends: installing the packages to get llama.cpp's source" >&2
  (cd "$ROOT" && sh scripts/bun.sh install --frozen-lockfile >/dev/null)
fi
if [ ! -f "$BUNDLE" ]; then
  echo "backends: $BUNDLE is missing; llama-server not built" >&2
  exit 1
fi
VERSION="$(sed -n 's/.*"tag": *"\([^"]*\)".*/\1/p' "$LLAMA_DIR/llama.cpp.info.json" | head -1)"
VERSION="${VERSION:-unknown}"
CACHE="${LOREHOLD_LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lorehold-llama-server}"
SRC="$CACHE/$VERSION"
BIN="$SRC/build/bin/llama-server"
if [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi
missing=()
for tool in git cmake c++ make; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "backends: ${missing[*]} missing and no apt-get: install git, cmake and a C++ compiler by hand" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else echo "backends: not root and no sudo: cannot install ${missing[*]}" >&2; exit 1; fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends git cmake g++ make >/dev/null
fi
mkdir -p "$CACHE"
if [ ! -f "$SRC/CMakeLists.txt" ]; then
  rm -rf "$SRC"
  git clone --quiet "$BUNDLE" "$SRC"
fi
JOBS="${LOREHOLD_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
start=$(date +%s)
cd "$SRC"
# This release deprecates LLAMA_CURL (downloads are off without it) and would fetch a prebuilt web UI and link
# OpenSSL by default: both off, the tests only speak plain HTTP to 127.0.0.1.
nice cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_OPENSSL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_SERVER=ON \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null 2>&1
LOG="$CACHE/build-$VERSION.log"
if ! nice cmake --build build --target llama-server -j "$JOBS" >"$LOG" 2>&1; then
  tail -30 "$LOG" >&2
  echo "backends: the llama-server build failed (log: $LOG); the remote-generation tests will skip" >&2
  exit 1
fi
echo "backends: built llama-server $VERSION in $(( $(date +%s) - start )) s" >&2
echo "$BIN"
