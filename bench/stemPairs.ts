/**
 * Which words the reply checks' stems (src/core/text/wordStem.ts, Porter's algorithm) make one that the hand-written
 * stems they replaced kept apart, and the other way round, over a vocabulary: the tuning worlds' packs and every
 * line and sample of the given bench/quality.ts result files. The old stems are copied here as they stood (each
 * check had its own), so the comparison needs no other checkout.
 *
 *   bun bench/stemPairs.ts bench/results/r13/stem-main/quality-….json [more.json]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { words } from "../src/npc/replies/wordOverlap.ts";
import { wordStem } from "../src/core/text/wordStem.ts";

/** src/npc/replies/attribution.ts's stem before. */
function attributionStem(w: string): string {
  const s = w.replace(/'s$/, "").replace(/(?:ings?|ers?|ed|es|s|e)$/, "");
  return s.length >= 3 ? s : w;
}

/** src/npc/replies/recitedLine.ts's stem before. */
function recitalStem(w: string): string {
  let s = w.replace(/'s$/, "");
  if (s.length > 4 && s.endsWith("ies")) return `${s.slice(0, -3)}y`;
  for (const end of ["ings", "ers", "ing", "ed", "er", "s"]) {
    if (end === "s" && /[siu]s$/.test(s)) break;
    if (s.endsWith(end) && s.length - end.length >= 3) {
      s = s.slice(0, -end.length);
      break;
    }
  }
  return s.length > 3 && s.endsWith("e") ? s.slice(0, -1) : s;
}

/** src/npc/secrets/secretTerms.ts's stem before. */
function secretStem(w: string): string {
  const s = w.replace(/'s$/, "");
  if (s.length > 5 && s.endsWith("ing")) return s.slice(0, -3);
  if (s.length > 4 && s.endsWith("ed")) return s.slice(0, -2);
  if (s.length > 4 && s.endsWith("es")) return s.slice(0, -2);
  if (s.length > 3 && s.endsWith("s") && !s.endsWith("ss")) return s.slice(0, -1);
  return s;
}

const root = join(import.meta.dir, "..");
const texts = ["examples/thornhaven.yaml", "examples/saltmarsh-quality.yaml", "examples/reedmouth-quality.yaml"].map((f) => readFileSync(join(root, f), "utf8"));
for (const f of process.argv.slice(2).filter((a) => a.endsWith(".json"))) {
  const run = JSON.parse(readFileSync(f, "utf8")) as { worlds: Record<string, { records: { text: string; reply: string; attempts?: string[] }[] }> };
  for (const w of Object.values(run.worlds)) for (const r of w.records) texts.push(r.text, r.reply, ...(r.attempts ?? []));
}
// the checks skip words of two letters and numbers
const vocabulary = [...new Set(texts.flatMap(words))].filter((w) => w.length >= 3 && !/\d/.test(w));

/** Every pair of distinct words the stem makes one, as "a~b". */
function pairs(stem: (w: string) => string): Set<string> {
  const byStem = new Map<string, string[]>();
  for (const w of vocabulary) byStem.set(stem(w), [...(byStem.get(stem(w)) ?? []), w]);
  const out = new Set<string>();
  for (const group of byStem.values()) for (const a of group) for (const b of group) if (a < b) out.add(`${a}~${b}`);
  return out;
}

const now = pairs(wordStem);
console.log(`vocabulary: ${vocabulary.length} words`);
for (const [check, stem] of [["attribution", attributionStem], ["recital", recitalStem], ["secret", secretStem]] as const) {
  const before = pairs(stem);
  const gained = [...now].filter((p) => !before.has(p));
  const lost = [...before].filter((p) => !now.has(p));
  console.log(`\n${check}: ${gained.length} pairs one word now and not before, ${lost.length} one word before and not now`);
  console.log(`  now only: ${gained.join(" ")}`);
  console.log(`  before only: ${lost.join(" ")}`);
}
