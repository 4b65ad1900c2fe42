#!/usr/bin/env bash
# Builds llama-server (CPU) from the llama.cpp source node-llama-cpp ships, once per version, into a cache dir
# outside the clone. The remote-generation tests (test/generation/**) run against it and skip loudly without it.
# Idempotent: when the binary for this version exists, it prints its path and exits at once.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
LLAMA_DIR="$ROOT/node_modules/node-llama-cpp/llama"
BUNDLE="$LLAMA_DIR/gitRelease.bundle"
if [ ! -f "$BUNDLE" ]; then
  echo "backends.sh: $BUNDLE is missing (run npm install first); llama-server not built" >&2
  exit 0
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
for tool in git cmake c++; do
  command -v "$tool" >/dev/null || { echo "backends.sh: $tool not found; llama-server not built" >&2; exit 0; }
done
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
  echo "backends.sh: the llama-server build failed (log: $LOG); the remote-generation tests will skip" >&2
  exit 0
fi
echo "backends.sh: built llama-server $VERSION in $(( $(date +%s) - start ))s" >&2
echo "$BIN"
