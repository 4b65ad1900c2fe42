#!/bin/sh
# Runs Bun, installing it from the npm registry first when this machine has none.
# Fresh machines have only Node.js and npm; Bun is published on npm, so that is enough.
set -e
BUN_VERSION=1.4.5
here=$(cd "$(dirname "$0")/.." && pwd)
if command -v bun >/dev/null 2>&1; then exec bun "$@"; fi
local_bun="$here/.tools/node_modules/.bin/bun"
if [ ! -x "$local_bun" ]; then
  echo "lorehold: installing Bun $BUN_VERSION from the npm registry into .tools/" >&2
  npm install --silent --no-save --no-audit --no-fund --prefix "$here/.tools" "bun@$BUN_VERSION" >&2
fi
exec "$local_bun" "$@"
