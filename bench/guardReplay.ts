/**
 * How much of a rejected first sample the reply guard lets the model generate before it starts the next one,
 * replayed offline on the first samples a bench/quality.ts run recorded (no model: the samples are fed to the
 * reply shaper word by word, as a backend streams them). Run it on a result file of code that judged only the
 * opening (each first sample there is whole) to see where the current shaper would have stopped it.
 *
 *   bun bench/guardReplay.ts bench/results/quality-qwen-minilm-….json [more.json]
 */
import { readFileSync } from "node:fs";
import { ReplyShaper } from "../src/npc/replies/ReplyShaper.ts";
import { replyProblems, type ReplyContext } from "../src/npc/replies/detectors.ts";
import { words } from "../src/npc/replies/wordOverlap.ts";

interface Rec {
  part: string;
  mind: string;
  text: string;
  firstAttempt?: string;
  maxSentences: number;
  previous?: string;
}

const rows: { whole: number; judged: number; stoppedEarly: boolean; kind: string }[] = [];
for (const file of process.argv.slice(2)) {
  const data = JSON.parse(readFileSync(file, "utf8")) as { worlds: Record<string, { records: Rec[] }> };
  for (const world of Object.values(data.worlds))
    for (const r of world.records) {
      if (!r.firstAttempt) continue;
      // The detectors' context without the mind's profile: the player's line and the mind's name (from its pack key,
      // "captain-hesk" → "Captain Hesk") are what the early checks need most; prompt lines and other names are left
      // out, so this undercounts early stops, never overcounts.
      const mindName = r.mind.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
      const context: ReplyContext = {
        playerLine: r.text, mindName, otherNames: [], structuralLines: [], narrativeLines: [], noteNames: [],
        previousReply: r.previous ?? null, maxSentences: r.maxSentences, secrets: [],
      };
      const shaper = new ReplyShaper({ context, maxTokens: 64, judgeOpening: true, streaming: false });
      let said = "";
      for (const piece of r.firstAttempt.match(/\s*\S+/g) ?? []) {
        said += piece;
        if (shaper.push(piece).stop) break;
      }
      const kind = shaper.failure?.kind ?? replyProblems(r.firstAttempt, context).map((p) => p.kind).join(",");
      rows.push({ whole: words(r.firstAttempt).length, judged: words(said).length, stoppedEarly: shaper.failure !== null, kind });
    }
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
console.log(`first samples rejected: ${rows.length}; stopped before their end: ${rows.filter((r) => r.stoppedEarly).length}`);
console.log(`words generated: ${sum(rows.map((r) => r.judged))} with the current shaper vs ${sum(rows.map((r) => r.whole))} whole (${Math.round((100 * sum(rows.map((r) => r.judged))) / Math.max(1, sum(rows.map((r) => r.whole))))} %)`);
for (const r of rows) console.log(`  ${r.judged}/${r.whole} words  ${r.stoppedEarly ? "stopped" : "to the end"}  ${r.kind}`);
