// Scores a `bench/behaviourAccuracy.ts --dump FILE` run, also one cut short: only the (line, seed) pairs every
// variant reached are counted, so the variants are compared on the same lines.
// Usage: bun bench/support/scoreAccuracyDump.ts FILE... (several: the parts of one run split by --calls)
import { readFileSync } from "node:fs";

interface Row {
  variant: string;
  seed: number;
  half: string;
  valid: boolean;
  actions: { name: string; params: Record<string, unknown> }[];
  tailTokens: number | null;
  tailMs: number | null;
  tailEvaluated: number | null;
  actProbability?: number;
  label: { line: string; action: { name: string; params: Record<string, unknown> } | null };
}

const key = (r: Row) => `${r.seed}|${r.label.line}`;
// a line two parts both reached counts once (the first file's)
const seen = new Set<string>();
const rows = process.argv
  .slice(2)
  .flatMap((f) => readFileSync(f, "utf8").split("\n"))
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Row)
  .filter((r) => !seen.has(`${r.variant}|${key(r)}`) && seen.add(`${r.variant}|${key(r)}`));
const variants = [...new Set(rows.map((r) => r.variant))];
const complete = new Set([...new Set(rows.map(key))].filter((k) => variants.every((v) => rows.some((r) => r.variant === v && key(r) === k))));
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
const pct = (n: number, d: number) => `${d ? ((100 * n) / d).toFixed(0) : "–"} % (${n}/${d})`;

console.log(`${complete.size} (line, seed) pairs reached by all of: ${variants.join(", ")}`);
console.log("| variant | part | validity | action recall (called for) | action precision (taken) | parameters right (recalled) | false actions (none called for) | tail tokens p50 | tail evaluated tokens p50 | tail ms p50 |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const part of ["all", ...new Set(rows.map((r) => r.half))]) {
  for (const v of variants) {
    const mine = rows.filter((r) => r.variant === v && complete.has(key(r)) && (part === "all" || r.half === part));
    let calledFor = 0, recalled = 0, taken = 0, takenRight = 0, paramsRight = 0, none = 0, falseActions = 0;
    for (const r of mine.filter((x) => x.valid)) {
      const want = r.label.action;
      taken += r.actions.length;
      takenRight += r.actions.filter((a) => a.name === want?.name).length;
      if (!want) {
        none++;
        if (r.actions.length) falseActions++;
        continue;
      }
      calledFor++;
      const hit = r.actions.find((a) => a.name === want.name);
      if (hit) {
        recalled++;
        if (JSON.stringify(hit.params) === JSON.stringify(want.params)) paramsRight++;
      }
    }
    const num = (f: (r: Row) => number | null) => mine.map(f).filter((x): x is number => x !== null);
    console.log(
      `| ${v} | ${part} | ${pct(mine.filter((r) => r.valid).length, mine.length)} | ${pct(recalled, calledFor)} | ${pct(takenRight, taken)} | ${pct(paramsRight, recalled)} | ${pct(falseActions, none)} | ${median(num((r) => r.tailTokens))} | ${median(num((r) => r.tailEvaluated))} | ${median(num((r) => r.tailMs)).toFixed(0)} |`,
    );
  }
}
