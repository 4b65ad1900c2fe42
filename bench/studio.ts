/**
 * The Studio's first load: bundle size (raw and gzipped) and how long a
 * fresh headless Chromium takes from navigation to the sign-in form, cold
 * (empty cache) and warm (assets cached), against a real server.
 *
 *   bun bench/studio.ts [--runs 5]
 *
 * Needs Debian's chromium (scripts/ci/studio.sh installs it).
 */
import { existsSync, rmSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { App } from "../src/app/App.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { buildStudio } from "../src/studio/studioBundle.ts";
import { tempDir, testConfig } from "../test/support/testApp.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const runs = Number(values.runs);
const CHROMIUM = process.env.LOREHOLD_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) {
  console.error(`no Chromium at ${CHROMIUM}: run scripts/ci/studio.sh`);
  process.exit(2);
}

const t0 = performance.now();
const bundle = await buildStudio();
const buildMs = performance.now() - t0;
const kb = (n: number) => (n / 1024).toFixed(1);
let raw = 0;
let gz = 0;
for (const f of bundle.files) {
  const bytes = new TextEncoder().encode(f.text);
  const z = Bun.gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gz += z;
  console.log(`${f.name.padEnd(24)} ${kb(bytes.length).padStart(7)} KB raw  ${kb(z).padStart(6)} KB gzip`);
}
const htmlGz = Bun.gzipSync(new TextEncoder().encode(bundle.html)).length;
console.log(`JS+CSS: ${kb(raw)} KB raw, ${kb(gz)} KB gzipped (+ index.html ${kb(htmlGz)} KB gzipped); bundled in ${buildMs.toFixed(0)} ms`);

const dir = tempDir("lorehold-bench-studio-");
const app = await App.start(testConfig(dir, { port: 0, host: "127.0.0.1" }), { logger: silentLogger, loadModel: false });
const base = `http://127.0.0.1:${app.port}`;
await fetch(`${base}/`); // the server bundles from source on its first request (the executable has it built in)
const { chromium } = await import("playwright-core");
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cold: number[] = [];
const warm: number[] = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } }); // fresh profile: empty cache
  const page = await context.newPage();
  for (const into of [cold, warm]) {
    const start = performance.now();
    await page.goto(`${base}/`);
    await page.getByLabel("Admin token").waitFor();
    into.push(performance.now() - start);
  }
  await context.close();
}
await browser.close();
await app.stop();
rmSync(dir, { recursive: true, force: true });
console.log(`first load to the sign-in form (median of ${runs}): cold ${median(cold).toFixed(0)} ms, warm ${median(warm).toFixed(0)} ms; ratio cold/warm ${(median(cold) / median(warm)).toFixed(2)}`);
console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB; Chromium headless over loopback`);
