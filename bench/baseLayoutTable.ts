/**
 * The grounding runs of bench/baseLayoutQuality.ts (or bench/quality.ts) side by side, one column per file: the
 * returned replies (the guard on) and the first samples (what the model did before the guard), per seed and per
 * world, questions ahead of / behind the first file, prompt echo, hygiene failures, resamples, length, first token.
 *
 *   bun bench/baseLayoutTable.ts shipped=bench/results/r6/gemma-knowsExample naiveLike=bench/results/r6/gemma-naiveLike …
 *
 * Each argument is `label=path` (a quality JSON file, or a folder holding one: its newest).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { HYGIENE } from "./support/qualityTables.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import type { ReplyRecord } from "./support/qualityWorldRun.ts";
import { naivePrompts } from "./support/naiveBaseline.ts";
import { exampleCopy } from "../src/npc/replies/detectors.ts";
import { exampleLines } from "../src/llm/transcriptTurn.ts";

const facts = new Map<string, RegExp>();
for (const w of [TUNING, REEDMOUTH, CINDERVALE]) for (const q of w.grounding) facts.set(`${w.name}|${q.mind}|${q.text}`, q.fact);
/**
 * Each mind's documents and persona as the naive arm pastes them: this tree's exampleCopy check is run on every file's
 * replies with them (a file written before the check has none recorded), as the bench's own context does.
 */
const minds = new Map([TUNING, REEDMOUTH, CINDERVALE].flatMap((w) => [...naivePrompts(join(import.meta.dir, ".."), w.packs)].map(([k, m]) => [`${w.name}|${k}`, m.system] as const)));
const copies = (world: string, r: ReplyRecord, text: string) =>
  exampleCopy(text, { playerLine: r.text, example: { lines: exampleLines(), known: [minds.get(`${world}|${r.mind}`) ?? "", r.text] } }) !== null;

function fileOf(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const files = readdirSync(path).filter((f) => f.endsWith(".json")).sort();
  return join(path, files.at(-1)!);
}
interface Row extends ReplyRecord { world: string; firstHit: boolean; copy: boolean; firstCopy: boolean }
const columns = process.argv.slice(2).map((a) => {
  const [label, path] = a.includes("=") ? (a.split("=", 2) as [string, string]) : [a, a];
  const data = JSON.parse(readFileSync(fileOf(path), "utf8")) as { meta: { loadAverage: number[]; commit: string }; worlds: Record<string, { records: ReplyRecord[] }> };
  const rows: Row[] = Object.entries(data.worlds).flatMap(([world, w]) =>
    w.records
      .filter((r) => r.arm === "lorehold" || r.arm === "naive")
      .map((r) => {
        const fact = facts.get(`${world}|${r.mind}|${r.text}`);
        // The first sample: the raw text of the first generation when the guard resampled, else the reply returned.
        const first = r.firstAttempt ?? r.reply;
        return { ...r, world, firstHit: r.part === "grounding" && !!fact && fact.test(first), copy: copies(world, r, r.reply), firstCopy: copies(world, r, first) };
      }),
  );
  return { label, rows, load: data.meta.loadAverage };
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
const key = (r: Row) => `${r.world}|${r.mind}|${r.text}|${r.seed}`;
const base = new Map(columns[0]?.rows.filter((r) => r.part === "grounding").map((r) => [key(r), r]) ?? []);
const lines: [string, (rows: Row[]) => string][] = [
  ["grounding, returned replies", (rs) => `${g(rs).filter((r) => r.hit).length}/${g(rs).length}`],
  ["grounding, first samples", (rs) => `${g(rs).filter((r) => r.firstHit).length}/${g(rs).length}`],
  ["returned, per seed", (rs) => seeds(rs).map((s) => g(rs).filter((r) => r.seed === s && r.hit).length).join(" / ")],
  ["returned, per world", (rs) => worlds(rs).map((w) => `${g(rs).filter((r) => r.world === w && r.hit).length}/${g(rs).filter((r) => r.world === w).length}`).join(" · ")],
  ["question-seeds ahead / behind the first column (returned)", (rs) => {
    const ahead = g(rs).filter((r) => r.hit && base.get(key(r)) && !base.get(key(r))!.hit).length;
    const behind = g(rs).filter((r) => !r.hit && base.get(key(r))?.hit).length;
    return `${ahead} / ${behind}`;
  }],
  ["prompt echo, returned (first samples)", (rs) => `${rs.filter((r) => has(r.problems, "promptEcho")).length}/${rs.length} (${rs.filter((r) => has(r.firstProblems ?? r.problems, "promptEcho")).length})`],
  ["parroting (echo), returned", (rs) => `${rs.filter((r) => has(r.problems, "echo")).length}/${rs.length}`],
  ["hygiene failures, returned", (rs) => `${rs.filter((r) => r.problems.some((p) => HYGIENE.includes(p.kind))).length}/${rs.length}`],
  ["replies resampled by the guard", (rs) => `${rs.filter((r) => r.generations > 1).length}/${rs.length}`],
  ["the example copied (exampleCopy, this tree's check), returned (first samples)", (rs) => `${rs.filter((r) => r.copy).length}/${rs.length} (${rs.filter((r) => r.firstCopy).length})`],
  ["hygiene failures without exampleCopy, returned", (rs) => `${rs.filter((r) => r.problems.some((p) => HYGIENE.includes(p.kind) && p.kind !== "exampleCopy")).length}/${rs.length}`],
  ["resampled for exampleCopy (first samples with it that the guard saw)", (rs) => `${rs.filter((r) => r.generations > 1 && has(r.firstProblems, "exampleCopy")).length}/${rs.length}`],
  ["the example's words (old well, forty feet, give or take), returned", (rs) => `${rs.filter((r) => /old well|forty(?:-\w+)? feet|give or take/i.test(r.reply)).length}/${rs.length}`],
  ["median words", (rs) => String(median(rs.map((r) => r.words)))],
  ["first token, engine, median", (rs) => `${(median(rs.map((r) => r.ttftMs)) / 1000).toFixed(2)} s`],
];
function g(rs: Row[]) {
  return rs.filter((r) => r.part === "grounding");
}
function seeds(rs: Row[]) {
  return [...new Set(rs.map((r) => r.seed))].sort((a, b) => a - b);
}
function worlds(rs: Row[]) {
  return [...new Set(rs.map((r) => r.world))];
}
function has(ps: { kind: string }[] | undefined, kind: string) {
  return !!ps?.some((p) => p.kind === kind);
}
console.log(`| | ${columns.map((c) => c.label).join(" | ")} |`);
console.log(`|---|${columns.map(() => "---").join("|")}|`);
for (const [label, f] of lines) console.log(`| ${label} | ${columns.map((c) => f(c.rows)).join(" | ")} |`);
console.log(`| load average (start … end) | ${columns.map((c) => c.load.map((x) => x.toFixed(0)).join("…")).join(" | ")} |`);
console.log(`\nworlds: ${[...new Set(columns.flatMap((c) => worlds(c.rows)))].join(", ")}`);
