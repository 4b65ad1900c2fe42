/**
 * Usable precision of a scanner run from the saved hand judgements (bench/scanner-judged.json):
 * each candidate of a run's seeded sample (<corpus>/sample-<label>-<name>.json, written by
 * bench/scanner-real.ts) is matched to its judgement by sampleKey; candidates never judged are
 * listed for judging (add them to the file, then run again). Also the mean confidence per verdict.
 *
 *   bun bench/scanner-judge.ts <label> [held-out,combined]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { corpusRoot } from "./scanner-corpus.ts";

interface Judged { key: string; verdict: "lore" | "dialogue" | "noise"; kind?: string; file: string; title: string; judged: string }
interface Sampled { key: string; title: string; file: string; confidence: number; text: string }

const label = process.argv[2] ?? "run";
const names = (process.argv[3] ?? "held-out,combined").split(",");
const judgedFile = JSON.parse(readFileSync(join(import.meta.dir, "scanner-judged.json"), "utf8")) as Record<string, Judged[] | string>;
const known = new Map<string, Judged>();
for (const [k, v] of Object.entries(judgedFile)) if (k !== "about" && Array.isArray(v)) for (const j of v) known.set(j.key, j);

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
for (const name of names) {
  const sample = JSON.parse(readFileSync(join(corpusRoot(), `sample-${label}-${name}.json`), "utf8")) as Sampled[];
  const verdicts = sample.map((s) => ({ s, j: known.get(s.key) }));
  const unjudged = verdicts.filter((v) => !v.j);
  const judged = verdicts.filter((v) => v.j);
  const count = (verdict: string) => judged.filter((v) => v.j!.verdict === verdict).length;
  const kinds: Record<string, number> = {};
  for (const v of judged) if (v.j!.verdict === "noise") kinds[v.j!.kind ?? "other"] = (kinds[v.j!.kind ?? "other"] ?? 0) + 1;
  const conf = (verdict: string) => mean(judged.filter((v) => v.j!.verdict === verdict).map((v) => v.s.confidence));
  const usable = count("lore") + count("dialogue");
  console.log(
    `${name}: usable precision ${((usable / Math.max(1, judged.length)) * 100).toFixed(0)}% (${count("lore")} lore + ${count("dialogue")} dialogue of ${judged.length} judged; ${unjudged.length} unjudged)` +
      `; noise ${JSON.stringify(kinds)}; translations ${kinds.translation ?? 0}` +
      `; mean confidence lore ${conf("lore").toFixed(3)}, dialogue ${conf("dialogue").toFixed(3)}, noise ${conf("noise").toFixed(3)}`,
  );
  for (const { s } of unjudged) console.log(`  unjudged ${s.key} c=${s.confidence} [${s.title.slice(0, 60)}] ${s.file}\n      ${s.text.slice(0, 240)}`);
}
