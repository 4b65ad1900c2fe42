/**
 * The Studio's list pages at 1,000 minds and 50,000 documents: a real server on a free port, the big project of
 * bench/support/bigProject.ts, a fresh headless Chromium signed in once; for each page, the time from navigation
 * (a hash change, as a click in the side navigation makes) to its list rendered (the first row visible), and how
 * many rows the page put in the DOM. Median and max of `--runs`, the page left and re-entered between runs.
 *
 *   bun bench/studio-scale.ts [--minds 1000] [--documents 50000] [--runs 3]
 *
 * The scheduler is not started: the documents stay PENDING and are not indexed, so 50,000 documents don't put
 * the indexer on the same two cores as the page being timed (the lists read the same rows either way).
 */
import { existsSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { App } from "../src/app/App.ts";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { silentLogger } from "../src/ops/logger.ts";
import { tempDir, testConfig } from "../test/support/testApp.ts";
import { bigProject } from "./support/bigProject.ts";

const { values: args } = parseArgs({ options: { minds: { type: "string", default: "1000" }, documents: { type: "string", default: "50000" }, runs: { type: "string", default: "3" } } });
const CHROMIUM = process.env.LOREHOLD_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) {
  console.error(`no Chromium at ${CHROMIUM}: run scripts/ci/studio.sh`);
  process.exit(2);
}

const dir = tempDir("lorehold-studio-scale-");
const app = await App.create(testConfig(dir, { port: 0, host: "127.0.0.1" }), { logger: silentLogger, loadModel: false });
const g0 = performance.now();
const big = bigProject(app.ctx as never, { minds: Number(args.minds), documents: Number(args.documents) });
console.error(`generated ${args.minds} minds, ${args.documents} documents in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
app.listen();
const base = `http://127.0.0.1:${app.port}`;
const token = ensureAdminToken(app.db).adminToken;

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: base })).newPage();
const errors: string[] = [];
page.on("pageerror", (e) => errors.push(String(e)));
// Requests in flight: a page counts as ready once its list is visible and every request it made has answered.
let inflight = 0;
page.on("request", () => inflight++);
page.on("requestfinished", () => inflight--);
page.on("requestfailed", () => inflight--);
await page.goto("/");
await page.getByLabel("Admin token").fill(token);
await page.getByRole("button", { name: "Sign in" }).click();
await page.getByRole("heading", { name: "Projects" }).waitFor();

const p = `/p/${big.projectId}`;
// Each page and what "its list rendered" means there: the first row of its table, or for Players (a search form,
// no list until a player id is entered) its heading; on every page, also every request it made answered.
const pages: { label: string; hash: string; ready: string; rows: string }[] = [
  { label: "Minds (list)", hash: `${p}/minds`, ready: "table.list tbody tr", rows: "table.list tbody tr" },
  { label: "Lore documents (list)", hash: `${p}/lore`, ready: "table.list tbody tr", rows: "table.list tbody tr" },
  { label: "Players (search form)", hash: `${p}/players`, ready: "#players-title", rows: "table.list tbody tr" },
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const results: { label: string; ms: number[]; rows: number }[] = [];
for (const pg of pages) {
  const ms: number[] = [];
  let rows = 0;
  for (let r = 0; r < Number(args.runs); r++) {
    await page.evaluate(`location.hash = ${JSON.stringify(`${p}/overview`)}`);
    await page.waitForLoadState("networkidle");
    const t0 = performance.now();
    await page.evaluate(`location.hash = ${JSON.stringify(pg.hash)}`);
    await page.locator(pg.ready).first().waitFor({ state: "visible", timeout: 60_000 });
    // One frame first: a page starts its requests in effects, which run after the first paint.
    await page.evaluate("new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))");
    while (inflight > 0) await Bun.sleep(2);
    ms.push(performance.now() - t0);
    rows = await page.locator(pg.rows).count();
  }
  results.push({ label: pg.label, ms, rows });
  console.error(`${pg.label}: ${ms.map((x) => x.toFixed(0)).join(", ")} ms, ${rows} rows in the DOM`);
}

console.log(`\n### The Studio at scale (${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "cpu"} × ${cpus().length}, ${args.minds} minds, ${args.documents} documents, headless Chromium, load average ${loadavg()[0].toFixed(1)}, ${args.runs} runs)\n`);
console.log("| page | median ms | max ms | rows in the DOM | ≤ 1 s |");
console.log("|---|---|---|---|---|");
for (const r of results) console.log(`| ${r.label} | ${median(r.ms).toFixed(0)} | ${Math.max(...r.ms).toFixed(0)} | ${r.rows} | ${Math.max(...r.ms) <= 1000 ? "yes" : "no"} |`);
if (errors.length) console.error(`page errors: ${errors.join("; ")}`);
await browser.close();
await app.stop();
rmSync(dir, { recursive: true, force: true });
