// A typed turn's words, in-process and through a real llama-server on the same model and prompts: how often a reply
// comes back with no words (the model opened with the tail's delimiter or JSON, or ended at once), and how many words
// requests a remote turn took. Three modes interleaved turn by turn (random order within a turn), on the labelled
// lines of bench/behaviourAccuracy.ts (its shopkeeper and prompt): the local engine; a remote pool as it is now
// (the local engine's sampling, an empty reply sampled once more); and the remote words as they were sent before
// (llama-server's default sampling, one request, its answer returned as it came), rebuilt from the same chatBody.
// Usage: bun bench/remoteWords.ts [--model smol|qwen] [--lines 69] [--seeds 2] [--threads 1] [--words 24] [--seed 1]
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { LlmEngine } from "../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateRequest, TailRequest } from "../src/llm/types.ts";
import { cleanReply } from "../src/llm/cleanReply.ts";
import { tailSignOf, wordsBeforeTail } from "../src/llm/tailSign.ts";
import { RemotePool } from "../src/generation/remote/RemotePool.ts";
import { chatBody } from "../src/generation/remote/chatBody.ts";
import { LOCAL_SAMPLING } from "../src/generation/remote/localSampling.ts";
import { resolveBehaviour } from "../src/behaviour/resolveBehaviour.ts";
import { BEHAVIOUR_DELIMITER, behaviourBlock } from "../src/behaviour/behaviourPrompt.ts";
import { conditionsUnavailable, offerActions } from "../src/behaviour/offerActions.ts";
import { tailSchema } from "../src/behaviour/tailSchema.ts";
import { benchModelPath } from "./support/benchModel.ts";
import { labelledTurns, shopkeeper, thirdTurns } from "./support/behaviourLabels.ts";
import { llamaServerBinary, startLlamaServer } from "../test/support/llamaServer.ts";
import { prng } from "../test/support/prng.ts";

const { values: args } = parseArgs({
  options: {
    model: { type: "string", default: "smol" },
    lines: { type: "string", default: "69" },
    seeds: { type: "string", default: "2" },
    threads: { type: "string", default: "1" },
    words: { type: "string", default: "24" },
    seed: { type: "string", default: "1" },
  },
});
const modelPath = benchModelPath(args.model);
const BIN = llamaServerBinary();
if (!BIN) throw new Error("no llama-server binary: sh scripts/ci/backends.sh");
const threads = Number(args.threads);

const b = resolveBehaviour(shopkeeper.behaviour as never)!;
const refs = { mind: [], location: [], item: shopkeeper.items };
const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs }).offered;
const schema = tailSchema(b, offered, refs);
// the words are measured, not the tail: one tail token keeps the local engine's typed-turn path at its least cost
const tail: TailRequest = { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: schema, maxTokens: 1 };
const sign = tailSignOf(tail);
const system = `${shopkeeper.system}\nYou sell: ${shopkeeper.items.join(", ")}.\n${behaviourBlock(b)}`;
const messages = (line: string): ChatMessage[] => [{ role: "system", content: system }, { role: "user", content: line }];
const lines = [...labelledTurns, ...thirdTurns].slice(0, Number(args.lines)).map((t) => t.line);

const server = await startLlamaServer({ binary: BIN, model: modelPath, parallel: 1, slotContext: 2048, threads });
const engine = await LlmEngine.load({ modelPath, threads, parallel: 1, contextSize: 2048 });
const config = { url: server.url, model: "bench", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 600_000, kind: "llama-server" as const };
const pool = new RemotePool({ backends: [config], defaultTimeoutMs: 600_000, fallbackContextSize: 2048 });
await pool.probeAll();
let chatRequests = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  if (url.pathname === "/v1/chat/completions") chatRequests++;
  return realFetch(input, init);
}) as typeof fetch;

/** The words as a remote pool sent and returned them before: llama-server's default sampling, one request. */
async function before(req: GenerateRequest): Promise<{ text: string; raw: string }> {
  const body = chatBody(config, { messages: req.messages, maxTokens: req.maxTokens, temperature: req.temperature!, seed: req.seed, jsonSchema: null, stop: [tail.delimiter.trim()] }, -1);
  for (const k of Object.keys(LOCAL_SAMPLING)) delete body[k];
  body.stream = false;
  delete body.stream_options;
  const r = (await (await realFetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as {
    choices: { message: { content: string } }[];
  };
  const raw = r.choices[0].message.content ?? "";
  return { text: wordsBeforeTail(cleanReply(raw), sign), raw };
}

type Mode = "local" | "remote now" | "remote before";
const MODES: Mode[] = ["local", "remote now", "remote before"];
const rows: Record<Mode, { noWords: boolean; requests: number }[]> = { local: [], "remote now": [], "remote before": [] };
const beforeEmpty: Record<string, number> = {};
const rand = prng(Number(args.seed));
const hasWords = (t: string) => /\p{L}/u.test(t);
let key = 0;
for (const [i, line] of lines.entries()) {
  for (let s = 0; s < Number(args.seeds); s++) {
    const order = [...MODES].sort(() => rand() - 0.5);
    for (const mode of order) {
      const req: GenerateRequest = { conversationKey: `rw:${key++}`, messages: messages(line), maxTokens: Number(args.words), temperature: 0.7, seed: Number(args.seed) + s, minTokens: 1, tail };
      if (mode === "local") {
        const r = await engine.generate(req);
        rows.local.push({ noWords: !hasWords(r.text), requests: 1 });
      } else if (mode === "remote now") {
        chatRequests = 0;
        const r = await pool.generateOnce(req);
        rows[mode].push({ noWords: !hasWords(wordsBeforeTail(r.text, sign)), requests: chatRequests });
      } else {
        const r = await before(req);
        rows[mode].push({ noWords: !hasWords(r.text), requests: 1 });
        if (!hasWords(r.text)) {
          const kind = r.raw.trim() === "" ? "nothing (the delimiter first, or the end of turn)" : /^\s*\{/.test(r.raw) ? "the tail's JSON first" : "other";
          beforeEmpty[kind] = (beforeEmpty[kind] ?? 0) + 1;
        }
      }
    }
  }
  const nowRequests = rows["remote now"].reduce((n, r) => n + r.requests, 0);
  console.log(`line ${i + 1}/${lines.length}: ${MODES.map((m) => `${m} ${rows[m].filter((r) => r.noWords).length}/${rows[m].length}`).join(", ")}; remote now requests ${nowRequests}`);
}
globalThis.fetch = realFetch;
await pool.dispose();
await engine.dispose();
await server.stop();

const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(1)} % (${n}/${d})`;
console.log(
  `machine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load ${loadavg().map((x) => x.toFixed(1)).join(" ")}; model ${args.model}; threads ${threads}; ${lines.length} lines × ${args.seeds} seeds a mode; words ≤ ${args.words} tokens; temperature 0.7`,
);
console.log("| mode | replies with no words | words requests per turn |");
console.log("|---|---|---|");
for (const mode of MODES) {
  const rs = rows[mode];
  const requests = mode === "local" ? "1 (its resample is inside the engine)" : (rs.reduce((n, r) => n + r.requests, 0) / Math.max(1, rs.length)).toFixed(3);
  console.log(`| ${mode} | ${pct(rs.filter((r) => r.noWords).length, rs.length)} | ${requests} |`);
}
console.log(`remote before, the replies with no words: ${JSON.stringify(beforeEmpty)}`);
