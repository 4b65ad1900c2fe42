/**
 * Why a chat model's Lorehold prompt loses answers its naive prompt gives: the product's own prompt for each grounding
 * question is captured (POST /v1/npc/interact, the turn's first request), then re-written one difference at a time and
 * sampled directly on the same engine, seeds and settings (first samples: no reply guard, cut to the mind's sentence
 * cap as the product cuts a reply), the naive baseline's prompt beside it. A diagnosis, not a result: the lever found
 * here is then measured through the whole product with bench/quality.ts.
 *
 *   bun bench/smolProbe.ts --model smol --worlds third --minds ilse --seeds 1,2,3,4,5,6 --variants product,naive,noSecret
 *   bun bench/smolProbe.ts --model smol --worlds third --show ilse      # both prompts as the model reads them, nothing generated
 *   bun bench/smolProbe.ts --model qwen --worlds tuning --seeds 1,2,3,4 --variants product,naive,noPeople,bare  # without the "People you know" lines; bare: the location too
 */
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpus, loadavg } from "node:os";
import { parse } from "yaml";
import type { GenerateRequest } from "../src/generation/types.ts";
import type { ChatMessage } from "../src/llm/types.ts";
import { SECRET_MARK } from "../src/npc/secrets/secretFraming.ts";
import { capSentences, cutAtLastSentence } from "../src/npc/replies/sentences.ts";
import { createTestApp } from "../test/support/testApp.ts";
import { qwenFixture } from "../test/realmodel/realFixtures.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { CINDERVALE } from "./worlds/cindervale.questions.ts";
import type { QualityWorld } from "./support/worldTypes.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { loadMindProfile } from "../src/npc/mindProfile.ts";
import { retrieveLore, type LoreNote } from "../src/retrieval/hybridSearch.ts";
import { knowledgeTagNames } from "../src/lore/minds/mindStore.ts";
import { loreNote } from "../src/npc/prompt/renderTurn.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";

const fx = fixturesOrExit("smolProbe");
const root = join(import.meta.dir, "..");
const modelKey = arg("model", "smol");
const modelPath = modelKey === "qwen" ? (qwenFixture() ?? "") : modelKey === "gemma" ? fx.gemma : fx.smol;
const worldName = arg("worlds", "third");
const worldList = ({ heldout: [CINDERVALE], old: [TUNING], third: [REEDMOUTH], tuning: [TUNING, REEDMOUTH] } as Record<string, QualityWorld[]>)[worldName];
if (!worldList) throw new Error(`unknown --worlds ${worldName}`);
const seeds = arg("seeds", "1,2,3").split(",").map(Number);
const onlyMinds = arg("minds", "") ? new Set(arg("minds", "").split(",")) : null;
const onlyText = arg("text", "");
const show = arg("show", "");
const maxTokens = Number(arg("tokens", "64"));

// ---------------------------------------------------------------- the product's prompts, captured
const t = await createTestApp({ model: modelPath, modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads: Number(arg("threads", "1")), parallel: 1, contextSize: 4096, maxReplyTokens: maxTokens });
const gen = t.app.ctx.generation!;
const original = gen.generate.bind(gen);
let captured: GenerateRequest | null = null;
let capturing = true;
gen.generate = async (req) => {
  if (!capturing) return original(req);
  captured ??= req;
  return original({ ...req, maxTokens: 1 });
};
interface Case { world: string; mind: string; text: string; fact: RegExp; doc?: string; docName?: string; req: GenerateRequest; naive: GenerateRequest; naiveOrder: string[]; maxSentences: number; hits: LoreNote[] }
const cases: Case[] = [];
for (const world of worldList) {
  const w = loadWorld(t, world, root);
  await t.app.scheduler.trigger("indexer");
  const docs = new Map<string, string>();
  for (const file of world.packs) for (const d of (parse(readFileSync(join(root, file), "utf8")) as { documents: { key: string; name: string }[] }).documents) docs.set(d.key, d.name);
  for (const [i, q] of world.grounding.entries()) {
    if (onlyMinds && !onlyMinds.has(q.mind)) continue;
    if (onlyText && !q.text.includes(onlyText)) continue;
    const m = w.minds[q.mind];
    captured = null;
    await t.call("POST", "/v1/npc/interact", { key: w.key[m.projectId], body: { text: q.text, entityMindId: m.id, playerId: `probe-${i}` } });
    const nm = w.naive.get(q.mind)!;
    const naive: GenerateRequest = {
      conversationKey: `naive:${q.mind}`,
      messages: [{ role: "system", content: nm.system }, { role: "user", content: q.text }],
      maxTokens, temperature: nm.temperature, minTokens: 1, speaker: nm.name,
    };
    const naiveOrder = [...nm.system.matchAll(/^(.+):\n/gm)].map((x) => x[1]);
    const maxSentences = loadMindProfile(t.app.ctx as any, m.projectId, m.id).responseConfig.maxSentences;
    // What the turn's retrieval ranks first (the product's query for a first turn: the player's line).
    const hits = await retrieveLore(t.app.ctx as any, { projectId: m.projectId, query: q.text, tags: knowledgeTagNames(t.app.ctx.db, m.id), k: 4 });
    cases.push({ world: world.name, mind: q.mind, text: q.text, fact: q.fact!, doc: q.doc, docName: q.doc ? docs.get(q.doc) : undefined, req: captured!, naive, naiveOrder, maxSentences, hits });
  }
}
capturing = false;
console.error(`captured ${cases.length} prompts`);

// ---------------------------------------------------------------- the product's prompt, one difference at a time
interface Parts { persona: string[]; notes: string[]; user: string }
/** The system text's persona lines and its shared-lore notes, and the user turn (server sections, src/npc/prompt). */
function split(messages: ChatMessage[]): Parts {
  const system = messages[0].content;
  const at = system.indexOf("\n\n[Lore]\n");
  const persona = (at >= 0 ? system.slice(0, at) : system).split("\n");
  const notes = at >= 0 ? system.slice(at + "\n\n[Lore]\n".length).split(/\n\n(?=About )/) : [];
  return { persona, notes, user: messages[messages.length - 1].content };
}
function join2(p: Parts): ChatMessage[] {
  const lore = p.notes.length ? `\n\n[Lore]\n${p.notes.join("\n\n")}` : "";
  return [{ role: "system", content: `${p.persona.join("\n")}${lore}` }, { role: "user", content: p.user }];
}
const nameOf = (note: string) => {
  const n = note.replace(` ${SECRET_MARK}`, "");
  return n.slice("About ".length, n.indexOf(":"));
};
const isRules = (l: string) => l.startsWith("Your knowledge of the world is");
type Variant = (c: Case, p: Parts) => ChatMessage[] | "naive";
/** The turn's best note that is not a kept secret (the shared notes say which are), repeated just above the player's line. */
function bestRepeat(c: Case, p: Parts): Parts {
  const secret = new Set(p.notes.filter((n) => n.includes(SECRET_MARK)).map(nameOf));
  const best = c.hits.find((h) => !secret.has(h.documentName));
  return best ? { ...p, user: `[Lore]\n${loreNote(best)}\n\n[Player]\n${p.user}` } : p;
}
/** The persona without its "People you know:" heading and the lines listed under it. */
function withoutPeople(persona: string[]): string[] {
  const out: string[] = [];
  let inPeople = false;
  for (const l of persona) {
    if (l === "People you know:") {
      inPeople = true;
      continue;
    }
    if (inPeople && l.startsWith("- ")) continue;
    inPeople = false;
    out.push(l);
  }
  return out;
}
const secretFirst = (p: Parts): Parts => ({ ...p, notes: [...p.notes.filter((n) => n.includes(SECRET_MARK)), ...p.notes.filter((n) => !n.includes(SECRET_MARK))] });
const VARIANTS: Record<string, Variant> = {
  bestRepeat: (c, p) => join2(bestRepeat(c, p)),
  secretFirst: (_c, p) => join2(secretFirst(p)),
  bestRepeatSecretFirst: (c, p) => join2(bestRepeat(c, secretFirst(p))),
  product: (_c, p) => join2(p),
  naive: () => "naive",
  noSecret: (_c, p) => join2({ ...p, notes: p.notes.filter((n) => !n.includes(SECRET_MARK)) }),
  noMark: (_c, p) => join2({ ...p, notes: p.notes.map((n) => n.replace(` ${SECRET_MARK}`, "")) }),
  secretLast: (_c, p) => join2({ ...p, notes: [...p.notes.filter((n) => !n.includes(SECRET_MARK)), ...p.notes.filter((n) => n.includes(SECRET_MARK))] }),
  packOrder: (c, p) => join2({ ...p, notes: [...p.notes].sort((a, b) => c.naiveOrder.indexOf(nameOf(a)) - c.naiveOrder.indexOf(nameOf(b))) }),
  answerLast: (c, p) => join2({ ...p, notes: [...p.notes.filter((n) => nameOf(n) !== c.docName), ...p.notes.filter((n) => nameOf(n) === c.docName)] }),
  answerFirst: (c, p) => join2({ ...p, notes: [...p.notes.filter((n) => nameOf(n) === c.docName), ...p.notes.filter((n) => nameOf(n) !== c.docName)] }),
  plainUser: (_c, p) => join2({ ...p, user: p.user.replace(/^\[Player\]\n/m, "") }),
  loreInUser: (_c, p) => [{ role: "system", content: p.persona.join("\n") }, { role: "user", content: `[Lore]\n${p.notes.join("\n\n")}\n\n${p.user}` }],
  noRules: (_c, p) => join2({ ...p, persona: p.persona.filter((l) => !isRules(l)) }),
  shortIdentity: (_c, p) => join2({ ...p, persona: p.persona.map((l, i) => (i === 0 ? l.replace(/, a character in a game\..*$/, ".") : l)) }),
  bare: (_c, p) => join2({ ...p, persona: withoutPeople(p.persona).filter((l) => !l.startsWith("You are at ") && !l.startsWith("What you know:")) }),
  noPeople: (_c, p) => join2({ ...p, persona: withoutPeople(p.persona) }),
  docs: (_c, p) => [{ role: "system", content: `${p.persona.join("\n")}\n\n${p.notes.map((n) => `${nameOf(n)}${n.includes(SECRET_MARK) ? ` ${SECRET_MARK}` : ""}:\n${n.replace(` ${SECRET_MARK}`, "").slice(n.replace(` ${SECRET_MARK}`, "").indexOf(": ") + 2)}`).join("\n\n")}` }, { role: "user", content: p.user }],
};
const variants = arg("variants", "product,naive").split(",");
for (const v of variants) if (!VARIANTS[v]) throw new Error(`unknown variant ${v}: ${Object.keys(VARIANTS).join(", ")}`);

if (show) {
  for (const c of cases.filter((x) => x.mind === show).slice(0, 1)) {
    const p = split(c.req.messages);
    console.log(`==== Lorehold (${gen.countChatTokens(c.req.messages, c.req.speaker)} tokens)\n${c.req.messages.map((m) => `<${m.role}>\n${m.content}`).join("\n")}`);
    console.log(`\n==== naive (${gen.countChatTokens(c.naive.messages, c.naive.speaker)} tokens)\n${c.naive.messages.map((m) => `<${m.role}>\n${m.content}`).join("\n")}`);
    console.log(`\nnotes: ${p.notes.map(nameOf).join(" | ")}\nnaive order: ${c.naiveOrder.join(" | ")}\nsampling: temperature ${c.req.temperature} / ${c.naive.temperature}, maxTokens ${c.req.maxTokens} / ${c.naive.maxTokens}, repetition ${JSON.stringify(c.req.repetition)}`);
  }
  await t.close();
  process.exit(0);
}

interface Row { variant: string; mind: string; text: string; seed: number; reply: string; hit: boolean; tokens: number }
const rows: Row[] = [];
const file = join(root, "bench/results", arg("out", "probe"), `smol-probe-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
mkdirSync(join(file, ".."), { recursive: true });
const load0 = loadavg()[0];
for (const c of cases) {
  for (const v of variants) {
    const made = VARIANTS[v](c, split(c.req.messages));
    const req: GenerateRequest = made === "naive" ? c.naive : { ...c.req, messages: made, conversationKey: `probe:${v}:${c.mind}` };
    const tokens = gen.countChatTokens(req.messages, req.speaker);
    for (const seed of seeds) {
      const r = await original({ ...req, seed, maxTokens, onToken: undefined, avoid: undefined, stopSignal: undefined });
      let reply = capSentences(r.text.trim(), c.maxSentences);
      if (r.finishReason === "length") reply = cutAtLastSentence(reply);
      const hit = c.fact.test(reply);
      rows.push({ variant: v, mind: c.mind, text: c.text, seed, reply, hit, tokens });
      console.error(`${v} s${seed} ${c.mind} ${hit ? "✓" : "✗"} ${JSON.stringify(reply.slice(0, 140))}`);
    }
  }
  writeFileSync(file, JSON.stringify({ meta: { model: modelKey, worlds: worldName, seeds, variants, cpu: cpus()[0]?.model, load: [load0, loadavg()[0]] }, rows }, null, 2));
}
await t.close();

console.log(`\n### ${modelKey}, ${worldName}, seeds ${seeds.join(",")}, first samples (no guard), load ${load0.toFixed(1)}…${loadavg()[0].toFixed(1)}\n`);
console.log(`| question | ${variants.join(" | ")} |\n|---|${variants.map(() => "---").join("|")}|`);
for (const c of cases) console.log(`| ${c.mind}: ${c.text} | ${variants.map((v) => rows.filter((r) => r.variant === v && r.text === c.text && r.mind === c.mind && r.hit).length).join(" | ")} |`);
console.log(`| **all** | ${variants.map((v) => `**${rows.filter((r) => r.variant === v && r.hit).length}/${rows.filter((r) => r.variant === v).length}**`).join(" | ")} |`);
console.error(`replies written to ${file}`);
