/**
 * The reply guard's number check (GuardPolicy.checkQuantities, src/npc/replies/quantities.ts), with and without, on
 * the result files of `bun bench/quality.ts … --quantity-arms`: the product's turns with the check, and the turns it
 * changed run again without it (same seed, same prompt); every other turn is the same in both arms. Per world and
 * seed: grounding, hygiene, secrets told, the turns that flipped, samples per reply; then every sample the check
 * flagged, with whether that sample stated the question's fact (a flag on a right answer is a false positive that
 * cost something) so a person can judge each flagged number.
 *
 *   bun bench/quantityCheck.ts bench/results/qty/tuning/quality-….json [more.json]
 *   bun bench/quantityCheck.ts --check attribution bench/results/attr/…json   # the attribution check's arms (`--attribution-arms`)
 *
 * `--check recital`: the same for the recital check (GuardPolicy.checkRecitals, src/npc/replies/recitedLine.ts), on
 * the files of `bun bench/quality.ts … --recital-arms`.
 */
import { readFileSync } from "node:fs";
import { TUNING } from "./support/qualityQuestions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { HYGIENE } from "./support/qualityTables.ts";
import type { ReplyRecord } from "./support/qualityWorldRun.ts";

const which = process.argv.includes("--check") ? process.argv[process.argv.indexOf("--check") + 1] : "quantity";
const ARMS: Record<string, { kind: string; without: string; name: string }> = {
  quantity: { kind: "unsupportedQuantity", without: "withoutQuantityCheck", name: "number check" },
  attribution: { kind: "wrongAttribution", without: "withoutAttributionCheck", name: "attribution check" },
  recital: { kind: "offTopicRecital", without: "withoutRecitalCheck", name: "recital check" },
};
if (!ARMS[which]) throw new Error(`--check ${which}: one of ${Object.keys(ARMS).join(", ")}`);
const { kind: KIND, without: WITHOUT, name: CHECK } = ARMS[which];
const FACTS = new Map<string, RegExp>();
for (const w of [TUNING, REEDMOUTH, CINDERVALE]) for (const q of w.grounding) FACTS.set(`${q.mind}|${q.text}`, q.fact);

type World = { records: ReplyRecord[]; without?: ReplyRecord[] };
const worlds = new Map<string, World>();
for (const f of process.argv.slice(2).filter((a) => a.endsWith(".json"))) {
  const run = JSON.parse(readFileSync(f, "utf8")) as { worlds: Record<string, Record<string, ReplyRecord[]>> };
  for (const [name, w] of Object.entries(run.worlds)) {
    const into = worlds.get(name) ?? { records: [], without: [] };
    into.records.push(...w.records);
    into.without!.push(...(w[WITHOUT] ?? []));
    worlds.set(name, into);
  }
}

const key = (r: ReplyRecord) => `${r.part}|${r.mind}|${r.text}|${r.seed}`;
const hygienic = (r: ReplyRecord) => !r.problems.some((p) => HYGIENE.includes(p.kind));
const flagged = (r: ReplyRecord) => (r.guard?.problems ?? []).some((ps) => ps.some((p) => p.startsWith(KIND)));
const count = (rs: ReplyRecord[], f: (r: ReplyRecord) => boolean) => rs.filter(f).length;
const total = { with: 0, without: 0, n: 0 };

for (const [name, w] of worlds) {
  const withCheck = w.records.filter((r) => r.arm === "lorehold" && r.status === 200);
  const rerun = new Map((w.without ?? []).map((r) => [key(r), r]));
  const withoutCheck = withCheck.map((r) => rerun.get(key(r)) ?? r);
  const seeds = [...new Set(withCheck.map((r) => r.seed))].sort((a, b) => a - b);
  const parts = [...new Set(withCheck.map((r) => r.part))];
  console.log(`\n#### ${name}\n`);
  console.log(`| | with the ${CHECK} | without |`);
  console.log("|---|---|---|");
  const g = (rs: ReplyRecord[]) => rs.filter((r) => r.part === "grounding");
  const hits = (rs: ReplyRecord[]) => count(g(rs), (r) => r.hit === true);
  console.log(`| grounding | **${hits(withCheck)} / ${g(withCheck).length}** | **${hits(withoutCheck)} / ${g(withoutCheck).length}** |`);
  total.with += hits(withCheck);
  total.without += hits(withoutCheck);
  total.n += g(withCheck).length;
  console.log(`| per seed (${seeds.join(", ")}) | ${seeds.map((s) => hits(withCheck.filter((r) => r.seed === s))).join(", ")} | ${seeds.map((s) => hits(withoutCheck.filter((r) => r.seed === s))).join(", ")} |`);
  const minds = [...new Set(g(withCheck).map((r) => r.mind))];
  console.log(`| per mind (${minds.join(", ")}) | ${minds.map((m) => hits(withCheck.filter((r) => r.mind === m))).join(", ")} | ${minds.map((m) => hits(withoutCheck.filter((r) => r.mind === m))).join(", ")} |`);
  for (const part of parts) {
    const a = withCheck.filter((r) => r.part === part);
    const b = withoutCheck.filter((r) => r.part === part);
    console.log(`| hygiene failures, ${part} | ${a.length - count(a, hygienic)} / ${a.length} | ${b.length - count(b, hygienic)} / ${b.length} |`);
  }
  const secrets = (rs: ReplyRecord[]) => rs.filter((r) => r.part === "secrets");
  if (secrets(withCheck).length) console.log(`| secrets told | ${count(secrets(withCheck), (r) => r.hit === true)} / ${secrets(withCheck).length} | ${count(secrets(withoutCheck), (r) => r.hit === true)} / ${secrets(withoutCheck).length} |`);
  const samples = (rs: ReplyRecord[]) => (rs.reduce((n, r) => n + r.generations, 0) / Math.max(1, rs.length)).toFixed(2);
  console.log(`| samples per reply | ${samples(withCheck)} | ${samples(withoutCheck)} |`);
  console.log(`| turns where a sample was flagged / run again without | ${count(withCheck, flagged)} / ${rerun.size} | – |`);
  // A turn whose first sample had only the checked problem (a made-up number, a wrong person): without the check that sample is the reply, so
  // the turn run again should return it (the same prompt and seed); llama.cpp's reuse of a cached prefix may not.
  const firstOnly = withCheck.filter((r) => rerun.has(key(r)) && (r.guard?.problems[0] ?? []).length > 0 && r.guard!.problems[0].every((p) => p.startsWith(KIND)));
  console.log(`| run again: the first sample's text said again (of turns whose first sample had only this problem) | ${count(firstOnly, (r) => (r.attempts?.[0] ?? "").trim() === rerun.get(key(r))!.reply.trim())} / ${firstOnly.length} | – |`);
  const flips = g(withCheck).filter((r) => rerun.has(key(r)) && rerun.get(key(r))!.hit !== r.hit);
  console.log(`| grounding answers that flipped | ${flips.filter((r) => r.hit).length} right only with it | ${flips.filter((r) => !r.hit).length} right only without |`);

  console.log("\nTurns the check changed (with → without):\n");
  for (const r of withCheck) {
    const o = rerun.get(key(r));
    if (!o || o.reply === r.reply) continue;
    const mark = (x: ReplyRecord) => (x.hit === undefined ? "" : x.part === "grounding" ? (x.hit ? "✓ " : "✗ ") : x.hit ? "LEAK " : "");
    console.log(`- ${r.part} s${r.seed} ${r.mind}, "${r.text}": ${mark(r)}"${r.reply}" ← ${mark(o)}"${o.reply}"`);
  }

  console.log("\nEvery sample flagged (`fact`: that sample stated the question's fact, a false positive that cost a right answer; `miss`: it did not):\n");
  for (const r of withCheck) {
    (r.guard?.problems ?? []).forEach((ps, i) => {
      const q = ps.find((p) => p.startsWith(KIND));
      if (!q) return;
      const text = r.attempts?.[i] ?? (i === r.guard!.chosen - 1 ? r.reply : "?");
      const fact = FACTS.get(`${r.mind}|${r.text}`);
      const right = r.part === "grounding" && fact ? (fact.test(text) ? "fact" : "miss") : r.part;
      console.log(`- ${r.part} s${r.seed} ${r.mind}, "${r.text}", sample ${i + 1} of ${r.guard!.problems.length} (${right}): ${q.slice(KIND.length + 2)} in "${text.replaceAll("\n", " ").slice(0, 200)}"`);
    });
  }
}
if (worlds.size > 1) console.log(`\nAll worlds, grounding: with ${total.with} / ${total.n}, without ${total.without} / ${total.n}`);
