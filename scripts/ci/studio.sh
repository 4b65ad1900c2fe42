#!/bin/sh
# CI step for the Studio's browser tests (test/studio/e2e): Debian's Chromium, installed when missing.
# Idempotent and fast when it is already there. Never fails CI: without Chromium the e2e tests skip, loudly.
CHROMIUM=${LOREHOLD_CHROMIUM:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then
  echo "studio: $("$CHROMIUM" --version 2>/dev/null | head -1) at $CHROMIUM"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "WARNING: Chromium is missing and this user cannot install packages: the Studio browser tests (test/studio/e2e) will be SKIPPED."
    exit 0
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "WARNING: Chromium is missing and there is no apt-get here: the Studio browser tests (test/studio/e2e) will be SKIPPED."
  exit 0
fi
echo "studio: installing Debian's chromium (headless browser for test/studio/e2e)"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends chromium >/tmp/lorehold-chromium-install.log 2>&1; then
  $SUDO apt-get update >>/tmp/lorehold-chromium-install.log 2>&1
  $SUDO apt-get install -y --no-install-recommends chromium >>/tmp/lorehold-chromium-install.log 2>&1
fi
if [ -x "$CHROMIUM" ]; then
  echo "studio: $("$CHROMIUM" --version 2>/dev/null | head -1) installed"
else
  echo "WARNING: installing chromium failed (see /tmp/lorehold-chromium-install.log): the Studio browser tests (test/studio/e2e) will be SKIPPED."
fi
exit 0
