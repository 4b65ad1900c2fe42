// The smallest chat models read no kept secret (src/npc/secrets/smallestChatModels.ts), through the production path on
// the in-process engine: what an interaction hands llama.cpp, and the tokens llama.cpp evaluates for it, hold no kept
// secret's note, while the admin preview's trace, the session and the reply guard still know the secret (a reply
// telling it is flagged). Another project's note of the same words, no secret there, is read as before. What the
// models sample does not matter here: only what they were given, the same on any x86-64 CPU.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LlamaChat } from "node-llama-cpp";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { sharedLlama } from "../../src/llm/llamaRuntime.ts";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { chatWrapperFor } from "../../src/llm/transcriptChatWrapper.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { replyProblems } from "../../src/npc/replies/detectors.ts";
import { turnGuard } from "../../src/npc/replies/turnGuard.ts";
import { SECRET_MARK } from "../../src/npc/secrets/secretFraming.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { secretProjects, ASK, PLAIN_TEXT, SECRET_TEXT, TELLING_REPLY, type SecretProject } from "../support/secretWorld.ts";
import { createTestApp } from "../support/testApp.ts";
import { ensureTinyModel, tinyGgufParameterCount } from "../support/tinyGguf.ts";
import { qwenFixture, realFixtures } from "../realmodel/realFixtures.ts";

setDefaultTimeout(120_000);

const TINY = ensureTinyModel(undefined, { nCtx: 2048 });
const fx = realFixtures();
const qwen = qwenFixture();

/** The text llama.cpp evaluated for `messages` under the model's own layout, as the engine lays them out. */
async function evaluated(modelPath: string, messages: ChatMessage[]): Promise<string> {
  const llama = await sharedLlama(1);
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: 2048, threads: { ideal: 1, min: 1 } });
  try {
    const sequence = context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: chatWrapperFor(model), autoDisposeSequence: false });
    await chat.generateResponse(toChatHistory(messages), { maxTokens: 1, seed: 1 });
    return model.detokenize([...sequence.contextTokens], true);
  } finally {
    await context.dispose();
    await model.dispose();
  }
}

/** An app on `model` with the two projects; every prompt it hands its model recorded. */
async function appOn(model: string) {
  const t = await createTestApp({ model, embeddingModel: "hashing", parallel: 1, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  const projects = await secretProjects(t);
  const prompts = capturePrompts(t.app);
  const interact = async (p: SecretProject, playerId: string, text = ASK) => {
    const r = await t.call("POST", "/v1/npc/interact", { key: p.serverKey, body: { text, entityMindId: p.mindId, playerId } });
    expect(r.status).toBe(200);
    return prompts.at(-1)!;
  };
  const admin = ensureAdminToken(t.app.db).adminToken;
  const preview = async (p: SecretProject, playerId: string) => {
    const r = await t.call("POST", `/admin/v1/projects/${p.projectId}/interact-preview`, { key: admin, body: { text: ASK, entityMindId: p.mindId, playerId } });
    expect(r.status).toBe(200);
    return r.body as { prompt: ChatMessage[]; lore: { documentName: string; secret?: boolean }[] };
  };
  const guard = async (p: SecretProject, playerId: string, text = ASK) =>
    turnGuard(await prepareTurn(t.app.ctx, p.projectId, validateInteract({ text, entityMindId: p.mindId, playerId })), text);
  return { t, ...projects, interact, preview, guard };
}

const joined = (messages: ChatMessage[]) => messages.map((m) => m.content).join("\n");

describe("a chat model under 200M parameters (the suite's tiny GGUF, a ChatML template): the prompt has no kept secret", () => {
  let a: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    expect(tinyGgufParameterCount()).toBeLessThan(200_000_000);
    a = await appOn(TINY);
  }, 120_000);
  afterAll(() => a?.t.close());

  test("interact hands the model the plain note, not the secret's; llama.cpp evaluates the same", async () => {
    const sent = await a.interact(a.keeps, "p1");
    expect(joined(sent)).toContain(PLAIN_TEXT);
    expect(joined(sent)).not.toContain("silver filings");
    expect(joined(sent)).not.toContain(SECRET_MARK);
    const read = await evaluated(TINY, sent);
    expect(read).toContain(PLAIN_TEXT);
    expect(read).not.toContain("silver filings");
    expect(read).not.toContain("your secret");
  });

  test("the preview shows the same prompt, and its trace still lists the secret, marked", async () => {
    const p = await a.preview(a.keeps, "p-preview");
    expect(joined(p.prompt)).not.toContain("silver filings");
    expect(joined(p.prompt)).toContain(PLAIN_TEXT);
    expect(p.lore.find((l) => l.documentName === "The Salted Samples")?.secret).toBe(true);
  });

  test("the reply guard still knows the secret, on the first turn and from the session after it, and flags a reply telling it", async () => {
    const first = await a.guard(a.keeps, "p-guard");
    expect(first.context.secrets.length).toBe(1);
    // it reads the prompt with the secret, as for any model: the secret's number is one the mind was given
    expect(first.context.givenNumbers).toContain(37);
    expect(replyProblems(TELLING_REPLY, first.context).map((p) => p.kind)).toContain("secretLeak");
    await a.interact(a.keeps, "p-guard");
    const later = await a.guard(a.keeps, "p-guard", "And the weather?");
    expect(later.context.secrets.length).toBe(1);
    expect(replyProblems(TELLING_REPLY, later.context).map((p) => p.kind)).toContain("secretLeak");
  });

  test("another project's note of the same words, no secret there, is read; the first project's secret never reaches it", async () => {
    const other = await a.interact(a.tells, "p1");
    expect(joined(other)).toContain(`About The Salted Samples: ${SECRET_TEXT}`);
    expect((await a.guard(a.tells, "p-other")).context.secrets).toEqual([]);
    expect(joined(await a.interact(a.keeps, "p2"))).not.toContain("silver filings");
  });
});

describe.skipIf(!fx || !qwen)("the real models: SmolLM2-135M reads no kept secret, Qwen2.5-0.5B reads it marked", () => {
  test("SmolLM2-135M-Instruct: what interact hands it and what llama.cpp evaluates hold no kept secret; the guard knows it", async () => {
    const a = await appOn(fx!.smol);
    try {
      const sent = await a.interact(a.keeps, "p1");
      expect(joined(sent)).not.toContain("silver filings");
      const read = await evaluated(fx!.smol, sent);
      expect(read).toContain(PLAIN_TEXT);
      expect(read).not.toContain("silver filings");
      expect(replyProblems(TELLING_REPLY, (await a.guard(a.keeps, "p-guard")).context).map((p) => p.kind)).toContain("secretLeak");
    } finally {
      await a.t.close();
    }
  });

  test("Qwen2.5-Coder-0.5B (630M): the secret is in its prompt, marked as its own", async () => {
    const a = await appOn(qwen!);
    try {
      expect(joined(await a.interact(a.keeps, "p1"))).toContain(`About The Salted Samples ${SECRET_MARK}: ${SECRET_TEXT}`);
    } finally {
      await a.t.close();
    }
  });
});
