// A request's `avoid` (the reply guard's steering) on both generation paths: the local engine (node-llama-cpp's
// token bias) and a REAL llama-server (its `logit_bias` strings), each loading the tiny random-weight GGUF the suite
// writes. Greedy sampling makes each side's text a fixed function of the logits: the same request twice gives the same
// text, and with every token of that text pushed down it cannot begin the same way.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";
import type { BackendKind, GenerateRequest, GenerationBackend } from "../../src/generation/types.ts";

setDefaultTimeout(600_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/avoidTokens.test.ts (logit bias on real llama-server)");
const MODEL = ensureTinyModel();

const req = (seed: number): GenerateRequest => ({
  conversationKey: `avoid-${seed}`,
  messages: [{ role: "system", content: "You are Garrick." }, { role: "user", content: `Hello there, number ${seed}.` }],
  maxTokens: 8,
  temperature: 0,
  minTokens: 8,
});

async function check(gen: GenerationBackend, expectSteered: boolean): Promise<void> {
  let differed = 0;
  for (const seed of [1, 2, 3]) {
    const a = await gen.generate(req(seed));
    const again = await gen.generate(req(seed));
    expect(again.text).toBe(a.text);
    expect(a.text.length).toBeGreaterThan(0);
    const b = await gen.generate({ ...req(seed), avoid: [{ text: a.text, logit: -100 }] });
    if (b.text.slice(0, 3) !== a.text.slice(0, 3)) differed++;
  }
  // Steered, the first token of the greedy text is pushed 100 logits down: another token wins. (A text whose
  // characters tokenize differently alone could keep its opening, hence the three prompts.)
  if (expectSteered) expect(differed).toBeGreaterThanOrEqual(2);
  else expect(differed).toBe(0);
}

describe("avoid on the local engine", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ model: MODEL, parallel: 1, contextSize: 1024, maxReplyTokens: 8, threads: 1 });
  }, 180_000);
  afterAll(() => t?.close());

  test("every token of an avoided text is pushed down", () => check(t.app.ctx.generation!, true));
});

(BIN ? describe : describe.skip)("avoid on a remote pool (real llama-server)", () => {
  let server: LlamaServer;
  const apps: TestApp[] = [];
  const appOf = async (kind: BackendKind) => {
    const t = await createTestApp({
      generation: "remote",
      backends: [{ url: server.url, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 60_000, kind }],
      contextSize: 1024,
      maxReplyTokens: 8,
    });
    apps.push(t);
    return t;
  };
  beforeAll(async () => {
    server = await startLlamaServer({ binary: BIN!, model: MODEL, parallel: 1, slotContext: 1024, threads: 1 });
  }, 180_000);
  afterAll(async () => {
    for (const t of apps) await t.close();
    await server?.stop();
  });

  test("llama-server takes it as logit_bias strings and pushes the same tokens down", async () => check((await appOf("llama-server")).app.ctx.generation!, true));

  test("a server of another kind is not sent it (its logit_bias takes its own token ids): the greedy text is unchanged", async () =>
    check((await appOf("openai")).app.ctx.generation!, false));
});
