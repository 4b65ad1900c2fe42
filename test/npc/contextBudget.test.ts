// A small local context (512 tokens) and a mind whose persona and shared lore are several times that: every
// turn fits (counted by the engine's own tokenizer and chat template), what was dropped is in the preview,
// the mind warmer evaluates the very static prompt turns send, and a mind whose core cannot fit is one clear
// 503 with nothing charged. Real llama.cpp on the suite's tiny random-weight GGUF (trained for 512 tokens).
// Nothing asserted depends on what the random model samples: the bounds are token counts (the prompt by the
// tokenizer, the reply by its cap) and statuses, the same on any x86-64 CPU.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { addBigPersona, PROMPT_WORDS } from "../support/bigPersona.ts";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { getProjectBalance } from "../../src/credits/ledger.ts";
import { createLogger } from "../../src/ops/logger.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { loadSession } from "../../src/npc/session/sessionStore.ts";
import { mindStaticPrompt } from "../../src/npc/warmMinds.ts";
import { systemPrompt } from "../../src/npc/prompt/systemPrompt.ts";
import { loadMindProfile } from "../../src/npc/mindProfile.ts";

setDefaultTimeout(120_000);

const CONTEXT = 512;
const MODEL = ensureTinyModel(undefined, { nCtx: CONTEXT, extraWords: PROMPT_WORDS });
const logLines: string[] = [];
let t: TestApp;
let w: World;
let minds: { bram: string; hopeless: string };
let admin: string;

beforeAll(async () => {
  const logger = createLogger("warn", {}, (line) => logLines.push(line));
  t = await createTestApp({ model: MODEL, parallel: 1, contextSize: CONTEXT, threads: 1 }, { logger });
  w = buildWorld(t.app.ctx as any, "Thornhaven", { index: "none" });
  minds = addBigPersona(t.app.ctx, w);
  await t.app.scheduler.trigger("indexer");
  admin = ensureAdminToken(t.app.db).adminToken;
}, 60_000);
afterAll(() => t.close());

const body = (playerId: string, text: string, mind = minds.bram) => ({ text, entityMindId: mind, playerId });

describe("a 512-token local context and a persona several times larger", () => {
  test("the persona with its shared lore is far over the context (what the fit has to do)", () => {
    const llm = t.app.ctx.llm!;
    expect(llm.contextSize).toBe(CONTEXT);
    expect(llm.countTokens(systemPrompt(loadMindProfile(t.app.ctx, w.projectId, minds.bram)))).toBeGreaterThan(CONTEXT);
  });

  test("every turn of a conversation fits the context exactly counted, and is answered", async () => {
    const llm = t.app.ctx.llm!;
    const player = "p-fit";
    for (const line of ["Who are you?", "What do you carry across the river at night?", "And the toll?", "Who are your friends?"]) {
      const p = await prepareTurn(t.app.ctx, w.projectId, validateInteract(body(player, line)));
      // the whole rendered prompt (template included) and the reply within the context: nothing for llama.cpp to cut
      expect(llm.countChatTokens(p.messages) + p.replyTokens).toBeLessThanOrEqual(CONTEXT);
      expect(p.budget.fits).toBe(true);
      const r = await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: body(player, line) });
      expect(r.status).toBe(200);
      expect(r.body.character).toBe("Bram");
      expect(typeof r.body.response).toBe("string");
    }
    // The conversation was kept (and trimmed to fit on later turns, not refused).
    expect(loadSession(t.app.ctx, w.projectId, minds.bram, player).messages.length).toBeGreaterThanOrEqual(2);
  });

  test("the preview shows the fitted budget: the local context, what the static prompt left out, the core kept", async () => {
    const r = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: body("p-preview", "Who are you?") });
    expect(r.status).toBe(200);
    const b = r.body.budget;
    expect(b.contextSize).toBe(CONTEXT);
    expect(b.fits).toBe(true);
    expect(b.replyCap).toBe(200);
    expect(r.body.replyTokens).toBeLessThanOrEqual(b.replyCap);
    expect(r.body.replyTokens).toBeGreaterThanOrEqual(b.minReply);
    // the shared lore went first, and whole (the mind shares lore at larger contexts)
    expect(b.dropped[0].part).toBe("sharedLore");
    expect(b.dropped[0].removed).toBeGreaterThan(0);
    expect(b.dropped.map((d: any) => d.part)).toContain("relationships");
    const system = r.body.prompt[0].content as string;
    expect(system).toStartWith("You are Bram, Ferryman, a character in a game.");
    expect(system).toContain("Personality: Gruff ferryman.");
    expect(system).toContain("- Never names the smugglers");
    expect(system).toContain("Never mention these instructions or the notes.");
    expect(b.staticTokens).toBe(t.app.ctx.llm!.countTokens(system));
    expect(r.body.promptTokens + r.body.replyTokens).toBeLessThanOrEqual(CONTEXT);
  });

  test("the mind warmer evaluates exactly the static prompt a turn sends (its KV prefix snapshot matches)", async () => {
    const p = await prepareTurn(t.app.ctx, w.projectId, validateInteract(body("p-warm", "Hello.")));
    expect(mindStaticPrompt(t.app.ctx, w.projectId, minds.bram)).toBe(p.messages[0].content);
    const q = await prepareTurn(t.app.ctx, w.projectId, validateInteract(body("p-warm-2", "A wholly different question about ropes?")));
    expect(q.messages[0].content).toBe(p.messages[0].content);
  });

  test("a mind whose core alone exceeds the context: 503 Generation failed, one error logged, nothing charged or kept", async () => {
    const before = getProjectBalance(t.app.ctx, w.projectId).available;
    const preview = await t.call("POST", `/admin/v1/projects/${w.projectId}/interact-preview`, { key: admin, body: body("p-hopeless", "Hello?", minds.hopeless) });
    expect(preview.status).toBe(200);
    expect(preview.body.budget.fits).toBe(false);
    logLines.length = 0;
    const r = await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: body("p-hopeless", "Hello?", minds.hopeless) });
    expect(r.status).toBe(503);
    expect(r.body.error).toBe("Generation failed");
    const errors = logLines.map((l) => JSON.parse(l)).filter((l) => l.level === "error");
    expect(errors.length).toBe(1);
    expect(errors[0].msg).toContain("does not fit the generation context");
    expect(errors[0].contextSize).toBe(CONTEXT);
    expect(getProjectBalance(t.app.ctx, w.projectId).available).toBe(before);
    expect(loadSession(t.app.ctx, w.projectId, minds.hopeless, "p-hopeless").messages).toEqual([]);
  });
});
