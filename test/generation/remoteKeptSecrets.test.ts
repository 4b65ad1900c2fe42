// The smallest chat models read no kept secret behind a remote pool too (src/npc/secrets/smallestChatModels.ts): REAL
// llama-servers serving SmolLM2-135M-Instruct and Qwen2.5-Coder-0.5B-Instruct (the pinned fixtures), each behind
// generation = "remote". The size is the one each server reports (`/v1/models` → meta.n_params); the prompt an
// interaction sends SmolLM2's server holds no kept secret's note, Qwen's holds it marked, and a pool of both writes
// for the smaller. The reply guard still knows the secret. What the models sample does not matter here, only what
// they were sent: the same on any x86-64 CPU.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { RemotePool } from "../../src/generation/remote/RemotePool.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { conversationKey } from "../../src/npc/interactService.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { replyProblems } from "../../src/npc/replies/detectors.ts";
import { turnGuard } from "../../src/npc/replies/turnGuard.ts";
import { SECRET_MARK } from "../../src/npc/secrets/secretFraming.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";
import { secretProjects, ASK, PLAIN_TEXT, SECRET_TEXT, TELLING_REPLY, type SecretProject } from "../support/secretWorld.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { qwenFixture, realFixtures } from "../realmodel/realFixtures.ts";

setDefaultTimeout(120_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/remoteKeptSecrets.test.ts (the smallest chat models behind a remote pool)");
const fx = realFixtures();
const qwen = qwenFixture();
const suite = BIN && fx && qwen ? describe : describe.skip;

// (startLlamaServer loads the weights unrepacked, --no-repack: the layout changes no token a prompt is made of.)
const serve = (model: string) => startLlamaServer({ binary: BIN!, model, parallel: 1, slotContext: 2048 });

let smolServer: LlamaServer;
let qwenServer: LlamaServer;
const apps: TestApp[] = [];

/** An app whose generation is a remote pool of these servers, with the two projects; every prompt it sends recorded. */
async function appOn(servers: LlamaServer[]) {
  const backends = servers.map((s) => ({ url: s.url, model: "m", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 60_000, kind: "llama-server" as const }));
  const t = await createTestApp({ generation: "remote", backends, embeddingModel: "hashing", contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  apps.push(t);
  const projects = await secretProjects(t);
  const prompts = capturePrompts(t.app);
  const interact = async (p: SecretProject, playerId: string) => {
    const r = await t.call("POST", "/v1/npc/interact", { key: p.serverKey, body: { text: ASK, entityMindId: p.mindId, playerId } });
    expect(r.status).toBe(200);
    return prompts.at(-1)!.map((m: ChatMessage) => m.content).join("\n");
  };
  const guard = async (p: SecretProject, playerId: string) => turnGuard(await prepareTurn(t.app.ctx, p.projectId, validateInteract({ text: ASK, entityMindId: p.mindId, playerId })), ASK);
  return { t, pool: t.app.ctx.generation as RemotePool, ...projects, interact, guard };
}

beforeAll(async () => {
  if (!BIN || !fx || !qwen) return;
  [smolServer, qwenServer] = await Promise.all([serve(fx.smol), serve(qwen)]);
}, 120_000);
afterAll(async () => {
  for (const t of apps) await t.close();
  await smolServer?.stop();
  await qwenServer?.stop();
});

suite("kept secrets behind a remote pool of real llama-servers", () => {
  test("SmolLM2-135M's server: its size as reported; the prompt sent holds the plain note, no kept secret; the guard knows it", async () => {
    const a = await appOn([smolServer]);
    expect(a.pool.modelParameters).toBeGreaterThan(0);
    expect(a.pool.modelParameters!).toBeLessThan(200_000_000);
    const sent = await a.interact(a.keeps, "p1");
    expect(sent).toContain(PLAIN_TEXT);
    expect(sent).not.toContain("silver filings");
    expect(sent).not.toContain(SECRET_MARK);
    const g = await a.guard(a.keeps, "p-guard");
    expect(g.context.secrets.length).toBe(1);
    expect(replyProblems(TELLING_REPLY, g.context).map((p) => p.kind)).toContain("secretLeak");
    // another project's note of the same words, no secret there, is sent as before
    expect(await a.interact(a.tells, "p1")).toContain(`About The Salted Samples: ${SECRET_TEXT}`);
  });

  test("Qwen2.5-Coder-0.5B's server: the secret is sent, marked as the mind's own", async () => {
    const a = await appOn([qwenServer]);
    expect(a.pool.modelParameters!).toBeGreaterThan(200_000_000);
    expect(await a.interact(a.keeps, "p1")).toContain(`About The Salted Samples ${SECRET_MARK}: ${SECRET_TEXT}`);
  });

  test("a pool of both writes every prompt for the smaller: no kept secret to either server", async () => {
    const a = await appOn([qwenServer, smolServer]);
    expect(a.pool.modelParameters).toBe(a.pool.backends[1].parameters);
    // a player whose conversation lives on each server (the pool's own ring decides)
    const players = a.pool.backends.map((b) => {
      for (let i = 0; ; i++) if (a.pool.orderFor(conversationKey(a.keeps.projectId, a.keeps.mindId, `p${i}`))[0] === b) return `p${i}`;
    });
    for (const player of players) expect(await a.interact(a.keeps, player)).not.toContain("silver filings");
    expect(a.pool.backends.map((b) => b.requests > 0)).toEqual([true, true]);
  });
});
