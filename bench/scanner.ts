/**
 * Scanner benchmark: a generated ~200 MB ZIP of mixed game files goes through
 * the real path — streamed PUT to the signed upload URL, confirm, the scan
 * worker — in one server process, its RSS sampled every 20 ms by a second process
 * (bench/support/outsideRss.ts).
 *
 *   bun bench/scanner.ts            # ~200 MB archive (about 1–3 min on 2 cores)
 *   bun bench/scanner.ts 50         # a smaller archive, in MB
 *   BENCH_WITH_LLAMA=1 bun bench/scanner.ts   # as a server with a local model (node-llama-cpp loaded)
 *
 * The archive is written by a child process (fflate's streaming Zip straight
 * to disk, never holding the archive) so the RSS measured is the server's
 * alone. Files: Markdown, JSON, CSV, YAML, XML, Ink, Yarn, Ren'Py, PO, C#,
 * plain text — pseudo-word prose (Zipf over 5,000 words) with names, some
 * sections repeated across files (duplicate merging). Half the files are
 * deflated, half stored, as build tools mix them. Extraction MB/s is over the
 * uncompressed bytes the worker processed.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import { availableParallelism, cpus, platform, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import { prng } from "../test/support/prng.ts";
import { zipfWords } from "../test/support/zipfWords.ts";
import { OutsideRss } from "./support/outsideRss.ts";

const MB = 1024 * 1024;

// ---------------------------------------------------------------- generation (child process)


function generate(zipPath: string, manifestPath: string, targetBytes: number): void {
  const rand = prng(11);
  const { vocabulary: VOCAB, word } = zipfWords(rand);
  const NAMES = ["Garrick", "Elena", "Thornhaven", "the Rusty Tankard", "the Docks", "the abbey ruins", "Black Rook", "Mara", "Old Bridge"];
  const name = () => NAMES[Math.floor(rand() * NAMES.length)];
  const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
  const sentence = () => {
    const n = 8 + Math.floor(rand() * 14);
    const words = Array.from({ length: n }, () => (rand() < 0.06 ? name() : word()));
    return `${cap(words.join(" "))}.`;
  };
  const paragraph = (n = 3 + Math.floor(rand() * 4)) => Array.from({ length: n }, sentence).join(" ");
  // Titles are names (uniform over the vocabulary, as NPC, item and quest names are): few collide by chance.
  const anyWord = () => VOCAB[Math.floor(rand() * VOCAB.length)];
  const title = () => `${cap(anyWord())} ${cap(anyWord())}`;
  const shared = Array.from({ length: 200 }, () => ({ title: title(), text: paragraph() }));
  const section = () => (rand() < 0.05 ? shared[Math.floor(rand() * shared.length)] : { title: title(), text: paragraph() });
  const many = (size: number, render: (s: { title: string; text: string }, i: number) => string) => {
    let out = "";
    for (let i = 0; out.length < size; i++) out += render(section(), i);
    return out;
  };
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  const FORMATS: [string, (size: number) => string][] = [
    ["md", (n) => `# ${title()}\n\n${paragraph()}\n\n` + many(n, (s) => `## ${s.title}\n\n${s.text}\n\n`)],
    ["txt", (n) => many(n, (s) => `${s.text}\n\n`)],
    ["json", (n) => `[\n${many(n, (s, i) => `${i ? ",\n" : ""}  ${JSON.stringify({ id: i, name: s.title, description: s.text })}`)}\n]\n`],
    ["csv", (n) => `id,name,description\n${many(n, (s, i) => `${i},${s.title},"${s.text.replace(/"/g, '""')}"\n`)}`],
    ["yaml", (n) => many(n, (s, i) => `- id: ${i}\n  name: ${s.title}\n  description: >-\n    ${s.text}\n`)],
    ["xml", (n) => `<codex>\n${many(n, (s) => `  <entry name="${esc(s.title)}"><description>${esc(s.text)}</description></entry>\n`)}</codex>\n`],
    ["ink", (n) => many(n, (s, i) => `=== knot_${i} ===\n${s.text}\n* [Go on] -> knot_${i + 1}\n\n`)],
    ["yarn", (n) => many(n, (s, i) => `title: Node${i}\n---\n${name().replace(/^the /, "")}: ${s.text}\n===\n`)],
    ["rpy", (n) => many(n, (s, i) => `label scene_${i}:\n    e "${s.text.replace(/"/g, "'")}"\n\n`)],
    ["po", (n) => many(n, (s, i) => `#: scene_${i}\nmsgid "${s.title}"\nmsgstr "${s.text.replace(/"/g, "'")}"\n\n`)],
    ["cs", (n) => `public static class Barks {\n${many(n, (s, i) => `    // ${s.title}\n    public const string Line${i} = "${s.text.replace(/"/g, "'")}";\n`)}}\n`],
  ];

  const fd = openSync(zipPath, "w");
  let written = 0;
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    writeSync(fd, chunk);
    written += chunk.length;
  });
  const manifest: { filename: string; relativePath: string; sizeBytes: number; contentHash: string }[] = [];
  const enc = new TextEncoder();
  let uncompressed = 0;
  // Issue 12: the largest structured files a game ships (a dialogue database, a localisation YAML, a
  // mesh/tile-map JSON of numbers) come first, so the peak RSS includes parsing them.
  const numbers = (n: number) => {
    let out = '{"vertices":[';
    for (let i = 0; out.length < n; i++) out += `${i ? "," : ""}${(rand() * 1000).toFixed(3)}`;
    return `${out}]}`;
  };
  const large: [string, () => string][] = [
    ["game/data/dialogue-database.json", () => FORMATS[2][1](8 * MB)],
    ["game/data/localisation.yaml", () => FORMATS[4][1](4 * MB)],
    ["game/data/terrain-mesh.json", () => numbers(6 * MB)],
  ];
  // Stop while the next file (≤ ~200 kB) and the central directory still fit under the target.
  for (let i = 0; written + 256_000 < targetBytes && i < 4900; i++) {
    const [ext, render] = FORMATS[i % FORMATS.length];
    const size = 20_000 + Math.floor(rand() * 180_000);
    const bytes = enc.encode(i < large.length ? large[i][1]() : render(size));
    const relativePath = i < large.length ? large[i][0] : `game/${ext}/${String(i).padStart(4, "0")}-${word()}.${ext}`;
    const entry = i % 2 === 0 ? new ZipDeflate(relativePath, { level: 6 }) : new ZipPassThrough(relativePath);
    zip.add(entry);
    entry.push(bytes, true);
    uncompressed += bytes.length;
    manifest.push({
      filename: relativePath.slice(relativePath.lastIndexOf("/") + 1),
      relativePath,
      sizeBytes: bytes.length,
      contentHash: createHash("sha256").update(bytes).digest("hex"),
    });
  }
  zip.end();
  closeSync(fd);
  writeFileSync(manifestPath, JSON.stringify({ files: manifest, uncompressed }));
}

if (process.argv[2] === "--generate") {
  generate(process.argv[3], process.argv[4], Number(process.argv[5]));
  process.exit(0);
}

// ---------------------------------------------------------------- the server side (this process)

// A server with a local model has node-llama-cpp's modules loaded (~16 MB more at rest): BENCH_WITH_LLAMA=1 measures that server.
if (process.env.BENCH_WITH_LLAMA === "1") await import("node-llama-cpp");
const { App } = await import("../src/app/App.ts");
const { loadConfig } = await import("../src/config/config.ts");
const { silentLogger } = await import("../src/ops/logger.ts");
const { createProject } = await import("../src/projects/projectService.ts");
const { createApiKey } = await import("../src/auth/apiKeys.ts");
const { createLocation } = await import("../src/lore/locations/writeLocations.ts");
const { createTag } = await import("../src/lore/tags/writeTags.ts");
const { getJobDetail } = await import("../src/scanner/readJobs.ts");

const targetMb = Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 200;
const dir = mkdtempSync(join(tmpdir(), "lorehold-bench-scanner-"));
const zipPath = join(dir, "game.zip");
const manifestPath = join(dir, "manifest.json");

try {
  let t0 = performance.now();
  const gen = Bun.spawnSync([process.execPath, import.meta.path, "--generate", zipPath, manifestPath, String(Math.min(targetMb * MB, 200 * MB - MB))], { stdout: "inherit", stderr: "inherit" });
  if (gen.exitCode !== 0) throw new Error("archive generation failed");
  const generateSeconds = (performance.now() - t0) / 1000;
  const { files, uncompressed } = JSON.parse(readFileSync(manifestPath, "utf8")) as { files: unknown[]; uncompressed: number };
  const zipBytes = statSync(zipPath).size;

  const config = loadConfig({ cwd: dir, env: {}, flags: { dataDir: join(dir, "data"), modelsDir: join(dir, "models"), logLevel: "silent" } });
  const app = await App.create(config, { logger: silentLogger });
  const ctx = app.ctx;
  const project = createProject(ctx, { name: "Bench", monthlyCredits: 100_000 });
  for (const tag of ["tavern", "smugglers", "town-history"]) createTag(ctx, project.id, { name: tag });
  for (const [key, locName] of [["tankard", "Rusty Tankard"], ["docks", "Docks"], ["abbey", "abbey ruins"]]) createLocation(ctx, project.id, { key, name: locName });
  const editor = createApiKey(ctx, { projectId: project.id, type: "editor" }).key;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${editor}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as any };
  };

  // Anonymous vs file-backed resident memory (Linux): what the runtime holds vs mapped files.
  const procRss = () => {
    try {
      const st = readFileSync("/proc/self/status", "utf8");
      const kb = (k: string) => Math.round(Number(new RegExp(`${k}:\\s+(\\d+)`).exec(st)?.[1] ?? 0) / 1024);
      return `anon ${kb("RssAnon")} file ${kb("RssFile")}`;
    } catch {
      return "";
    }
  };
  Bun.gc(true);
  const baselineRss = process.memoryUsage().rss;
  let peak = baselineRss;
  let phasePeak = baselineRss;
  const trace = process.env.BENCH_TRACE_MEMORY === "1";
  let ticks = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    const rss = m.rss;
    if (trace && ticks++ % 20 === 0) console.error(`rss ${(rss / MB).toFixed(0)} ${procRss()} heapUsed ${(m.heapUsed / MB).toFixed(0)} heapTotal ${(m.heapTotal / MB).toFixed(0)} external ${(m.external / MB).toFixed(0)} arrayBuffers ${(m.arrayBuffers / MB).toFixed(0)}`);
    if (rss > peak) peak = rss;
    if (rss > phasePeak) phasePeak = rss;
  }, 100);
  // The figures reported: sampled from a second process (bench/support/outsideRss.ts), or the above where there is no /proc.
  const outside = OutsideRss.start();
  await outside?.phase();
  const phaseEnd = async (inProcess: number) => Math.max(inProcess, (await outside?.phase()) ?? 0);

  const submit = await call("POST", "/v1/scanner/submit-archive", { files, totalSizeBytes: zipBytes });
  if (submit.status !== 202) throw new Error(`submit: ${submit.status} ${JSON.stringify(submit.body)}`);
  const u = new URL(submit.body.uploadUrl);
  t0 = performance.now();
  const put = await app.handle(
    new Request(`http://localhost${u.pathname}${u.search}`, {
      method: "PUT",
      headers: { "content-type": "application/zip" },
      body: Bun.file(zipPath).stream(),
      duplex: "half",
    } as RequestInit),
  );
  if (put.status !== 200) throw new Error(`upload: ${put.status} ${await put.text()}`);
  const uploadSeconds = (performance.now() - t0) / 1000;
  const uploadPeak = await phaseEnd(phasePeak);
  const confirm = await call("POST", "/v1/scanner/submit-archive/confirm", { jobId: submit.body.jobId });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${JSON.stringify(confirm.body)}`);

  phasePeak = process.memoryUsage().rss;
  await outside?.phase();
  t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await app.scheduler.trigger("scan-worker");
  const scanSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // CPU seconds too: on a shared machine wall time also measures the neighbours.
  const scanCpuSeconds = (cpu.user + cpu.system) / 1e6;
  const scanPeak = await phaseEnd(phasePeak);
  if (process.env.BENCH_SCAN_ONLY === "1") {
    console.log(`scan ${scanSeconds.toFixed(1)} s wall, ${scanCpuSeconds.toFixed(1)} CPU-s, peak RSS ${(scanPeak / MB).toFixed(1)} MB (baseline ${(baselineRss / MB).toFixed(1)} MB)`);
    outside?.stop();
    process.exit(0);
  }

  // The job detail a poller fetches, streamed (the server's route): bytes counted as they arrive,
  // never held. Then, for comparison, the same detail built as one object and serialised.
  Bun.gc(true);
  const beforeDetailRss = process.memoryUsage().rss;
  phasePeak = beforeDetailRss;
  await outside?.phase();
  t0 = performance.now();
  const streamed = await app.handle(new Request(`http://localhost/v1/scanner/jobs/${submit.body.jobId}`, { headers: { authorization: `Bearer ${editor}` } }));
  let detailBytes = 0;
  let firstByteMs = 0;
  for await (const chunk of streamed.body as unknown as AsyncIterable<Uint8Array>) {
    if (!firstByteMs) firstByteMs = performance.now() - t0;
    detailBytes += chunk.length;
  }
  const detailSeconds = (performance.now() - t0) / 1000;
  const detailPeak = await phaseEnd(phasePeak);
  Bun.gc(true);
  const beforeObjectRss = process.memoryUsage().rss;
  phasePeak = beforeObjectRss;
  await outside?.phase();
  t0 = performance.now();
  // Synchronous, so the 100 ms sampler cannot run inside it: read RSS while the object and its JSON are alive.
  const whole = getJobDetail(ctx, project.id, submit.body.jobId);
  const json = JSON.stringify(whole);
  const objectSeconds = (performance.now() - t0) / 1000;
  const objectBytes = json.length;
  const objectPeak = await phaseEnd(Math.max(phasePeak, process.memoryUsage().rss));
  clearInterval(sampler);
  outside?.stop();
  // The server's own paths (the one-object detail is the comparison it does not take).
  peak = Math.max(uploadPeak, scanPeak, detailPeak);

  const row = ctx.db
    .query<{ status: string; bytes_processed: number; completed_files: number; failed_files: number }, [string]>(
      "SELECT status, bytes_processed, completed_files, failed_files FROM scan_jobs WHERE id = ?",
    )
    .get(submit.body.jobId)!;
  const extractions = ctx.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM scan_extractions WHERE job_id = ?").get(submit.body.jobId)!.n;
  const skippedListed = (JSON.parse(ctx.db.query<{ skipped: string }, [string]>("SELECT skipped FROM scan_jobs WHERE id = ?").get(submit.body.jobId)!.skipped) as unknown[]).length;
  await app.stop();

  const mb = (n: number) => (n / MB).toFixed(1);
  const result = {
    machine: `${cpus()[0]?.model ?? "?"} × ${availableParallelism()}, ${mb(totalmem())} MB RAM, ${platform()}, bun ${Bun.version}`,
    archive: { files: files.length, zipMb: Number(mb(zipBytes)), uncompressedMb: Number(mb(uncompressed)), generateSeconds: Number(generateSeconds.toFixed(1)) },
    upload: { seconds: Number(uploadSeconds.toFixed(2)), mbPerSecond: Number((zipBytes / MB / uploadSeconds).toFixed(1)), peakRssMb: Number(mb(uploadPeak)) },
    scan: {
      status: row.status,
      completedFiles: row.completed_files,
      failedFiles: row.failed_files,
      bytesProcessedMb: Number(mb(row.bytes_processed)),
      seconds: Number(scanSeconds.toFixed(1)),
      cpuSeconds: Number(scanCpuSeconds.toFixed(1)),
      extractionMbPerSecond: Number((row.bytes_processed / MB / scanSeconds).toFixed(1)),
      extractionMbPerCpuSecond: Number((row.bytes_processed / MB / scanCpuSeconds).toFixed(1)),
      extractions,
      skippedListed,
      peakRssMb: Number(mb(scanPeak)),
    },
    jobDetail: {
      streamed: { mb: Number(mb(detailBytes)), firstByteMs: Math.round(firstByteMs), seconds: Number(detailSeconds.toFixed(1)), rssBeforeMb: Number(mb(beforeDetailRss)), peakRssMb: Number(mb(detailPeak)) },
      oneObject: { mb: Number(mb(objectBytes)), seconds: Number(objectSeconds.toFixed(1)), rssBeforeMb: Number(mb(beforeObjectRss)), peakRssMb: Number(mb(objectPeak)) },
    },
    baselineRssMb: Number(mb(baselineRss)),
    peakRssMb: Number(mb(peak)),
    rssTargetMb: 300,
    withinTarget: peak < 300 * MB,
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(
    `\n| archive | uncompressed | files | upload | scan (wall / CPU) | extraction (wall / per CPU s) | extractions | peak RSS (upload / scan / overall) |\n|---|---|---|---|---|---|---|---|\n` +
      `| ${result.archive.zipMb} MB | ${result.archive.uncompressedMb} MB | ${files.length} | ${result.upload.seconds} s (${result.upload.mbPerSecond} MB/s) | ` +
      `${result.scan.seconds} s / ${result.scan.cpuSeconds} s | ${result.scan.extractionMbPerSecond} / ${result.scan.extractionMbPerCpuSecond} MB/s | ${extractions} | ${result.upload.peakRssMb} / ${result.scan.peakRssMb} / ${result.peakRssMb} MB |`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
