/**
 * The Studio's scan review at scale: a generated game project (characters described in Markdown and
 * in a JSON catalog, items, places, Yarn dialogue with speakers, design notes) goes through the real
 * scanner (submit, upload, worker), then the review's reads are timed side by side on one server:
 * the per-group review (first page of groups, with and without a long rejected selection), the
 * one-by-one page the Studio showed before, and the spec's job detail with `?groups=true`.
 * Also counted: the candidates, the groups and the bulk selectors a reviewer acts on.
 *
 *   bun bench/studio-review.ts [--characters 1500] [--runs 7]
 */
import { availableParallelism, cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { ensureAdminToken } from "../src/admin/adminToken.ts";
import { runWorker, scanFixture, submitAndUpload, type FileSpec } from "../test/scanner/service/scanSupport.ts";
import { prng } from "../test/support/prng.ts";
import { zipfWords } from "../test/support/zipfWords.ts";

const { values } = parseArgs({ options: { characters: { type: "string", default: "1500" }, runs: { type: "string", default: "7" } } });
const N = Number(values.characters);
const RUNS = Number(values.runs);

const rand = prng(7);
const { word, vocabulary } = zipfWords(rand);
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
const sentence = (names: string[] = []) => `${cap(Array.from({ length: 10 + Math.floor(rand() * 10) }, () => (names.length && rand() < 0.08 ? pick(names) : word())).join(" "))}.`;
const para = (names: string[] = [], n = 3) => Array.from({ length: n }, () => sentence(names)).join(" ");
const names = [...new Set(Array.from({ length: N * 2 }, () => `${cap(pick(vocabulary))}${cap(pick(vocabulary)).slice(0, 3)}`))].slice(0, N);
const places = names.slice(0, Math.ceil(N / 10)).map((n) => `${n} Hold`);

const files: FileSpec[] = [];
const perFile = 50;
for (let f = 0; f * perFile < N; f++) {
  const chunk = names.slice(f * perFile, (f + 1) * perFile);
  for (const n of chunk) files.push({ path: `lore/characters/${n.toLowerCase()}.md`, data: `# ${n}\n\n${para(places)}\n` });
  files.push({ path: `data/characters_${f}.json`, data: JSON.stringify(chunk.map((n) => ({ name: n, description: para(places, 2) }))) });
  files.push({ path: `data/items_${f}.json`, data: JSON.stringify(chunk.map((n) => ({ name: `${n}'s ${cap(word())}`, description: para([], 2) }))) });
  const scenes = Array.from({ length: 10 }, (_, i) => {
    const cast = [pick(chunk), pick(chunk), pick(chunk)];
    const lines = Array.from({ length: 6 }, () => `${pick(cast)}: ${sentence(places)}`).join("\n");
    return `title: Scene_${f}_${i}\n---\n${lines}\n===\n`;
  });
  files.push({ path: `dialogue/act_${f}.yarn`, data: scenes.join("") });
  files.push({ path: `notes/design_${f}.md`, data: `# Design notes ${f}\n\n${para()}\n\n## Backlog\n\n${para()}\n` });
}
for (const p of places) files.push({ path: `lore/places/${p.toLowerCase().replace(/ /g, "-")}.md`, data: `# ${p}\n\n${para(names)}\n` });

const f = await scanFixture();
const token = ensureAdminToken(f.t.app.db).adminToken;
const bytes = files.reduce((n, x) => n + (typeof x.data === "string" ? Buffer.byteLength(x.data) : x.data.length), 0);
const t0 = performance.now();
const { jobId } = await submitAndUpload(f, files);
await runWorker(f);
const scanMs = performance.now() - t0;
const projectId = f.w.projectId;

const admin = (method: string, path: string, body?: unknown) => f.t.call(method, `/admin/v1/projects/${projectId}${path}`, { key: token, body });
const first = (await admin("POST", `/scan-jobs/${jobId}/review-groups`, { limit: 100 })).body;
if (!first.totals) throw new Error(`review-groups failed: ${JSON.stringify(first)}`);
// a reviewer who already rejected a thousand groups one by one (the longest `hide` a session builds)
const rejected = (await admin("POST", `/scan-jobs/${jobId}/review-groups`, { limit: 1000 })).body.groups.map((g: any) => g.group);

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    await fn();
    times.push(performance.now() - s);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

const rows: [string, number][] = [
  ["review-groups, first 100 groups (the Studio's default view)", await median(() => admin("POST", `/scan-jobs/${jobId}/review-groups`, { limit: 100, openOnly: true }))],
  ["review-groups, 1,000 groups rejected (`hide`)", await median(() => admin("POST", `/scan-jobs/${jobId}/review-groups`, { limit: 100, openOnly: true, hide: { groups: rejected } }))],
  ["one group's extractions (opening a group)", await median(() => admin("GET", `/scan-jobs/${jobId}/extractions?limit=500&group=${encodeURIComponent(first.groups[0].group)}`))],
  ["one-by-one page, 200 extractions with full text", await median(() => admin("GET", `/scan-jobs/${jobId}/extractions?limit=200`))],
  ["GET /v1/scanner/jobs/{id}?groups=true (every extraction)", await median(() => f.t.call("GET", `/v1/scanner/jobs/${jobId}?groups=true`, { key: f.w.keys.editor }))],
];
const base = rows[0][1];
const cpu = cpus()[0]?.model ?? "?";
console.log(`\nscan: ${files.length} files, ${(bytes / 1024 / 1024).toFixed(2)} MB, scanned in ${(scanMs / 1000).toFixed(1)} s`);
console.log(
  `review: ${first.totals.extractions} candidates in ${first.totals.groups} groups (${(first.totals.extractions / first.totals.groups).toFixed(2)} per group); ` +
    `${first.kinds.length} kinds, ${first.folders.length} folders, ${first.files.length} files; ${first.knowledgeSuggestions.length} speaking characters`,
);
console.log(`kinds: ${first.kinds.map((k: any) => `${k.name} ${k.count}`).join(", ")}`);
console.log(`\n| read (median of ${RUNS}) | ms | ÷ first page of groups |\n|---|---:|---:|`);
for (const [what, ms] of rows) console.log(`| ${what} | ${ms.toFixed(1)} | ${(ms / base).toFixed(2)} |`);
console.log(`\nMachine: ${availableParallelism()} × ${cpu}, ${(totalmem() / 1024 ** 3).toFixed(1)} GB, Bun ${Bun.version}`);
await f.close();
