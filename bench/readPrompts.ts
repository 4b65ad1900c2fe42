/**
 * The text a model reads for each grounding question of the tuning worlds (the first turn, as POST /v1/npc/interact
 * prepares it), from a checkout's own code, to compare two checkouts' prompts without generating: `--compare` says
 * per question whether both hold the same lines. Lines, not the whole text: a world's ids are new each load, and
 * notes or relationships whose order falls to their ids come in another order from one load to the next (in either
 * checkout alike). A checkout that cut the kept secrets in the engine's chat wrapper (src/llm/smallestChatModels.ts)
 * has its cut applied here, so the text is what its model read.
 *
 * `--exact` compares the whole texts byte for byte; `--tokens` writes, under each question, the token ids the
 * checkout's engine evaluates (the turn as its chat wrapper renders and tokenizes it, and the mind's static prefix its
 * KV cache keeps), so two checkouts can be compared on what the model is fed, not only on the text.
 *
 *   bun bench/readPrompts.ts --root /path/to/checkout --model smol|gemma|qwen [--tokens] --out a.txt
 *   bun bench/readPrompts.ts --compare [--exact] a.txt b.txt
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { arg } from "./support/benchArgs.ts";

if (process.argv.includes("--compare")) {
  const exact = process.argv.includes("--exact");
  const files = process.argv.slice(process.argv.indexOf("--compare") + 1).filter((f) => !f.startsWith("--"));
  const [a, b] = files.map((f) => questions(f, exact));
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  const same = keys.filter((k) => a.get(k) === b.get(k));
  console.log(`${same.length} of ${keys.length} questions: ${exact ? "the very same text (and tokens, where written)" : "the same lines"} in both`);
  for (const k of keys.filter((k) => a.get(k) !== b.get(k))) console.log(`differs: ${k}`);
  process.exit(same.length === keys.length ? 0 : 1);
}

function questions(file: string, exact = false): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of readFileSync(file, "utf8").split("\n### ").slice(1)) {
    const [head, ...lines] = block.split("\n");
    out.set(head, exact ? lines.join("\n") : lines.sort().join("\n"));
  }
  return out;
}

const root = arg("root", join(import.meta.dir, ".."));
const load = (rel: string) => import(join(root, rel));
const { createTestApp } = await load("test/support/testApp.ts");
const { loadWorld } = await load("bench/support/qualityWorldRun.ts");
const { indexAll } = await load("bench/support/indexAll.ts");
const { TUNING } = await load("bench/support/qualityQuestions.ts");
const { REEDMOUTH } = await load("bench/worlds/reedmouth.questions.ts");
const { prepareTurn } = await load("src/npc/prepareTurn.ts");
const { validateInteract } = await load("src/npc/validateInteract.ts");
const { fixturesOrExit } = await load("bench/support/benchArgs.ts");
let engineCut: { withoutKeptSecrets: (text: string) => string; isSmallestChatModel: (n: number) => boolean } | null = null;
try {
  engineCut = await load("src/llm/smallestChatModels.ts");
} catch {}
const fx = fixturesOrExit("readPrompts");
const { qwenFixture } = await load("test/realmodel/realFixtures.ts");
const model = { smol: fx.smol, gemma: fx.gemma, qwen: qwenFixture() }[arg("model", "smol") as "smol" | "gemma" | "qwen"];
const t = await createTestApp({ model, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: 1, parallel: 1, contextSize: 4096, maxReplyTokens: 64 });
const worlds = [TUNING, REEDMOUTH].map((w) => loadWorld(t, w, root));
await indexAll(t.app);
// (as that engine decided it: by the GGUF's parameter count)
const parameters = (t.app.ctx.llm as unknown as { model: { fileInsights: { totalParameters: number } } }).model.fileInsights.totalParameters;
const cut = engineCut?.isSmallestChatModel(parameters) ? engineCut.withoutKeptSecrets : (text: string) => text;
/** The engine's own view of a prompt (private to it: read here as its generation reads it, LlmEngine.run). */
type Tokens = { turn(m: unknown[], speaker?: string): { tokens: number[] }; prefix(m: unknown[], speaker?: string): { tokens: number[] } | null };
const engineTokens = (t.app.ctx.llm as unknown as { prompts: Tokens }).prompts;
const withTokens = process.argv.includes("--tokens");
const out: string[] = [];
let marked = 0;
for (const w of worlds)
  for (const q of w.world.grounding) {
    const m = w.minds[q.mind];
    const p = await prepareTurn(t.app.ctx, m.projectId, validateInteract({ text: q.text, entityMindId: m.id, playerId: "reader" }));
    if (p.messages.some((x: { content: string }) => x.content.includes("(your secret:"))) marked++;
    let text = p.messages.map((x: { role: string; content: string }) => `<${x.role}>\n${cut(x.content)}`).join("\n");
    if (withTokens) {
      const speaker = p.mind.entityName;
      const prefix = engineTokens.prefix(p.messages, speaker)?.tokens ?? [];
      text += `\n<tokens: prefix ${prefix.length}>\n${prefix.join(" ")}\n<tokens: turn>\n${engineTokens.turn(p.messages, speaker).tokens.join(" ")}`;
    }
    out.push(`### ${w.world.name} · ${q.mind} · ${q.text}\n${text}`);
  }
await Bun.write(arg("out", "prompts.txt"), `\n${out.join("\n")}`);
console.log(`${out.length} prompts; ${marked} carry a kept secret's note as the turn wrote them (before any cut)`);
await t.close();
process.exit(0);
