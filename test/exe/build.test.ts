/**
 * Builds test/exe/probe.ts into a real executable with scripts/build.ts and
 * runs it from an empty folder with a bare environment (no node_modules
 * reachable), the way an operator would. Slow (a ~380 MB build plus several
 * starts: ~20-60 s on 2 cores) and disk hungry (~1 GB in $TMPDIR while it
 * runs); LOREHOLD_SKIP_EXE_TEST=1 skips it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dir, "../..");
const skip = process.env.LOREHOLD_SKIP_EXE_TEST === "1";
const CHECKS = ["sqlite", "lancedb", "llama", "transformers", "onnxruntime"];
const MB = 1024 * 1024;

interface ProbeRun {
  exitCode: number;
  stderr: string;
  wallMs: number;
  /** The probe's JSON line, or null when it printed none. */
  result: any;
}

let work = "";
let binDir = "";
let exe = "";
let model: string | null = null;
let embeddingModel: string | null = null;
const timings: Record<string, number> = {};

/** Runs the probe as a stranger would: bare env, cwd = the executable's folder, own HOME and TMPDIR. */
function runProbe(options: { home: string; tmp?: string; env?: Record<string, string>; executable?: string }): ProbeRun {
  const executable = options.executable ?? exe;
  const tmp = options.tmp ?? path.join(work, "tmp");
  fs.mkdirSync(tmp, { recursive: true });
  const started = performance.now();
  const proc = Bun.spawnSync([executable, ...probeArgs()], {
    cwd: path.dirname(executable),
    env: { PATH: "/usr/bin:/bin", HOME: options.home, TMPDIR: tmp, ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const wallMs = Math.round(performance.now() - started);
  const stdout = proc.stdout.toString();
  const lastLine = stdout.trim().split("\n").at(-1) ?? "";
  let result: unknown = null;
  try {
    result = JSON.parse(lastLine);
  } catch {
    // Left null: the assertions below print stdout/stderr.
  }
  return { exitCode: proc.exitCode ?? -1, stderr: proc.stderr.toString(), wallMs, result };
}

/** The optional model arguments: each needs a test-support writer that may not exist yet. */
function probeArgs(): string[] {
  return [model, embeddingModel].filter((a): a is string => a !== null);
}

function expectAllChecksPass(run: ProbeRun): void {
  if (run.exitCode !== 0 || !run.result?.ok) console.error(run.stderr, JSON.stringify(run.result, null, 2));
  expect(run.exitCode).toBe(0);
  expect(Object.keys(run.result.checks).sort()).toEqual([...CHECKS].sort());
  for (const name of CHECKS) expect({ name, ...run.result.checks[name] }).toMatchObject({ name, ok: true });
}

function freshHome(name: string): string {
  const home = path.join(work, "homes", name);
  fs.mkdirSync(home, { recursive: true });
  return home;
}

function nativeDirOf(run: ProbeRun): string {
  return run.result.native.dir as string;
}

describe.skipIf(skip)("single executable (scripts/build.ts)", () => {
  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "lorehold-exe-test-"));
    binDir = path.join(work, "bin");
    fs.mkdirSync(binDir);

    const started = performance.now();
    const build = Bun.spawnSync(
      [process.execPath, "scripts/build.ts", "--entry", "test/exe/probe.ts", "--outfile", path.join(work, "build", "probe")],
      { cwd: root, stdout: "pipe", stderr: "pipe" },
    );
    timings.buildMs = Math.round(performance.now() - started);
    if (build.exitCode !== 0) throw new Error(`build failed:\n${build.stderr.toString()}`);

    // An empty folder with no node_modules anywhere above it.
    exe = path.join(binDir, "probe");
    fs.copyFileSync(path.join(work, "build", "probe"), exe);
    fs.chmodSync(exe, 0o755);
    fs.rmSync(path.join(work, "build"), { recursive: true, force: true });

    // The model part needs the tiny GGUF writer (test/support/tinyGguf.ts).
    const writer = path.join(root, "test/support/tinyGguf.ts");
    if (fs.existsSync(writer)) {
      const { writeTinyGguf } = await import(writer);
      model = path.join(work, "tiny.gguf");
      writeTinyGguf(model);
    }
    const onnxWriter = path.join(root, "test/support/tinyOnnx.ts");
    if (fs.existsSync(onnxWriter)) {
      const { writeTinyOnnxModel } = await import(onnxWriter);
      embeddingModel = writeTinyOnnxModel(path.join(work, "tiny-embedding")).dir;
    }
  }, 180_000);

  afterAll(() => {
    console.error(`exe test timings: ${JSON.stringify(timings)}`);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test("is one CPU-only file of reasonable size, far from any node_modules", () => {
    for (let dir = binDir; dir !== path.dirname(dir); dir = path.dirname(dir)) expect(fs.existsSync(path.join(dir, "node_modules"))).toBe(false);
    const bytes = fs.statSync(exe).size;
    timings.exeMB = Math.round(bytes / MB);
    // Bun ~107 MB + LanceDB ~193 MB + llama.cpp/onnxruntime ~73 MB + JS. A CUDA variant alone would add 180+ MB.
    expect(bytes).toBeGreaterThan(300 * MB);
    expect(bytes).toBeLessThan(450 * MB);
    const content = fs.readFileSync(exe);
    for (const gpuLibrary of ["libggml-cuda.so", "libggml-vulkan.so"]) expect(content.includes(gpuLibrary)).toBe(false);
    expect(content.includes("libggml-cpu-x64.so")).toBe(true);
  });

  test("first start extracts the natives once and every check passes", () => {
    const home = freshHome("main");
    const run = runProbe({ home });
    timings.firstStartMs = run.wallMs;
    expectAllChecksPass(run);

    const native = run.result.native;
    expect(native).toMatchObject({ source: "cache", extracted: true, extractReason: "not extracted yet", lancedb: "embedded", target: "bun-linux-x64" });
    expect(native.dir).toStartWith(path.join(home, ".cache", "lorehold", "native-"));
    expect(fs.existsSync(path.join(native.dir, "manifest.json"))).toBe(true);

    const { llama, onnxruntime, lancedb } = run.result.checks;
    expect(llama).toMatchObject({ gpu: false, buildType: "prebuilt" });
    expect(llama.nativeFrom).toEqual([path.join(native.dir, "llama/linux-x64/llama-addon.node")]);
    expect(onnxruntime.nativeFrom).toEqual([path.join(native.dir, "onnxruntime/onnxruntime_binding.node")]);
    expect(onnxruntime.computed).toEqual([2, 4, 6, 8]);
    // LanceDB's .node stays embedded as is: Bun writes it to $TMPDIR itself.
    expect(lancedb.nativeFrom.length).toBe(1);
    expect(lancedb.nativeFrom[0]).toStartWith(path.join(work, "tmp") + "/");
    expect(lancedb.tagsType).toBe("List<Utf8>");
    if (model) expect(llama).toMatchObject({ model: "tiny.gguf", threads: 2 });
    if (model) expect(llama.tokens).toBeGreaterThanOrEqual(8);
    else expect(llama.model).toStartWith("skipped");
    // transformers.js reached onnxruntime: a missing model is a file-not-found, a real one embeds.
    expect(run.result.checks.transformers.missingModel).toContain("not found");
    if (embeddingModel) expect(run.result.checks.transformers.embedding).toEqual({ dims: 32, norm: 1 });
    else expect(run.result.checks.transformers.embedding).toStartWith("skipped");
  }, 180_000);

  test("second start reuses the extraction", () => {
    const home = freshHome("main");
    const run = runProbe({ home });
    timings.secondStartMs = run.wallMs;
    timings.secondStartPrepareMs = run.result?.native?.prepareMs;
    expectAllChecksPass(run);
    // reused, not extracted again (its prepareMs is recorded in the timings, not bounded: it is the machine's)
    expect(run.result.native).toMatchObject({ source: "cache", extracted: false, extractReason: null });
  }, 120_000);

  test("a corrupted extracted library is detected and re-extracted", () => {
    const home = freshHome("main");
    const dir = nativeDirOf(runProbe({ home }));
    const victim = path.join(dir, "llama/linux-x64/libllama.v0.5.0.so");
    const fd = fs.openSync(victim, "r+");
    fs.writeSync(fd, Buffer.from([0xde, 0xad, 0xbe, 0xef]), 0, 4, 4096); // same size, different bytes
    fs.closeSync(fd);

    const run = runProbe({ home });
    expectAllChecksPass(run);
    expect(run.result.native.extracted).toBe(true);
    expect(run.result.native.extractReason).toBe("llama/linux-x64/libllama.v0.5.0.so is corrupted (checksum mismatch)");
    expect(runProbe({ home }).result.native.extracted).toBe(false);
  }, 180_000);

  test("an interrupted extraction (files but no manifest, a truncated file) is redone", () => {
    const home = freshHome("main");
    const dir = nativeDirOf(runProbe({ home }));
    fs.truncateSync(path.join(dir, "onnxruntime/libonnxruntime.so.1"), 1000);
    fs.rmSync(path.join(dir, "manifest.json"));

    const run = runProbe({ home });
    expectAllChecksPass(run);
    expect(run.result.native).toMatchObject({ extracted: true, extractReason: "incomplete (no manifest.json)" });
  }, 180_000);

  test("two first starts at the same time both succeed", async () => {
    const home = freshHome("race");
    const spawn = () =>
      Bun.spawn([exe, ...probeArgs()], { cwd: binDir, env: { PATH: "/usr/bin:/bin", HOME: home, TMPDIR: path.join(work, "tmp") }, stdout: "pipe", stderr: "pipe" });
    const runs = [spawn(), spawn()];
    const outputs = await Promise.all(runs.map(async (p) => ({ code: await p.exited, out: await new Response(p.stdout).text() })));
    for (const { code, out } of outputs) {
      expect(code).toBe(0);
      expect(JSON.parse(out.trim().split("\n").at(-1)!).ok).toBe(true);
    }
    const leftovers = fs.readdirSync(path.join(home, ".cache", "lorehold"));
    expect(leftovers.filter((n) => n.includes(".tmp-") || n.includes(".old-"))).toEqual([]);
  }, 180_000);

  test("a native/ folder beside the executable is used in place", () => {
    const extracted = nativeDirOf(runProbe({ home: freshHome("main") }));
    const besideDir = path.join(work, "beside");
    fs.mkdirSync(besideDir);
    const besideExe = path.join(besideDir, "probe");
    fs.copyFileSync(exe, besideExe);
    fs.chmodSync(besideExe, 0o755);
    fs.cpSync(extracted, path.join(besideDir, "native"), { recursive: true });

    const home = freshHome("beside");
    const run = runProbe({ home, executable: besideExe });
    expectAllChecksPass(run);
    expect(run.result.native).toMatchObject({ source: "beside", dir: path.join(besideDir, "native"), extracted: false });
    expect(fs.existsSync(path.join(home, ".cache", "lorehold"))).toBe(false);
    fs.rmSync(besideDir, { recursive: true, force: true });
  }, 120_000);

  test("an unusable LOREHOLD_NATIVE_DIR fails at once with an error naming it", () => {
    const blocker = path.join(work, "not-a-dir");
    fs.writeFileSync(blocker, "");
    const run = runProbe({ home: freshHome("blocked"), env: { LOREHOLD_NATIVE_DIR: path.join(blocker, "natives") } });
    expect(run.exitCode).toBe(78);
    expect(run.result).toBeNull();
    expect(run.stderr).toContain("LOREHOLD_NATIVE_DIR");
    expect(run.stderr).toContain(path.join(blocker, "natives"));
    expect(run.stderr).not.toContain("    at "); // a message, not a stack trace
  }, 30_000);

  // Needs root with mount rights (CI containers usually lack them): skipped otherwise.
  test.skipIf(!canMountTmpfs())("a noexec LOREHOLD_NATIVE_DIR or TMPDIR is refused with a clear error", () => {
    const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), "lorehold-noexec-"));
    const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "noexec,size=400m", "tmpfs", mountPoint]);
    expect(mounted.exitCode).toBe(0);
    try {
      const natives = runProbe({ home: freshHome("noexec"), env: { LOREHOLD_NATIVE_DIR: mountPoint } });
      expect(natives.exitCode).toBe(78);
      expect(natives.stderr).toContain("does not allow executing files");
      expect(natives.stderr).toContain("LOREHOLD_NATIVE_DIR");

      const tmp = runProbe({ home: freshHome("noexec"), tmp: mountPoint });
      expect(tmp.exitCode).toBe(78);
      expect(tmp.stderr).toContain("Set TMPDIR");
    } finally {
      Bun.spawnSync(["umount", mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
  }, 120_000);
});

function canMountTmpfs(): boolean {
  if (skip || process.platform !== "linux" || process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "lorehold-mount-check-"));
  try {
    const ok = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stderr: "ignore" }).exitCode === 0;
    if (ok) Bun.spawnSync(["umount", probe]);
    return ok;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}
