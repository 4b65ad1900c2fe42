/**
 * How bench/quality.ts talks to the product: POST /v1/npc/interact in process (JSON or SSE), with every generation
 * of the turn seeded from the bench (the interact body has no seed): the turn's first generation gets the bench's
 * seed, a resample the next one. Also the naive baseline's one direct generation on the same backend.
 */
import type { GenerateRequest, GenerateResult, GenerationBackend } from "../../src/generation/types.ts";
import type { TestApp } from "../../test/support/testApp.ts";

export interface TurnResult {
  status: number;
  reply: string;
  /** engine time to the first sampled token of the turn's first generation */
  ttftMs: number;
  /** from the turn's start to the first token of its last generation (the reply returned after a resample) */
  lastFirstTokenMs: number;
  /** SSE only: from the request to the first `token` event a client received */
  clientFirstTokenMs: number | null;
  ms: number;
  /** generations the turn made (more than one: the reply guard resampled) */
  generations: number;
  /** the first generation's text when there were more (what the model said before the guard resampled) */
  firstAttempt: string | null;
  /** every generation's text, in order, when there were more than one (what the guard chose among, before shaping) */
  attempts: string[] | null;
  completionTokens: number;
  /** why the returned reply's generation ended ("length": the token cap cut it) */
  finishReason?: string;
}

export class SeededTurns {
  private base: number | null = null;
  private results: GenerateResult[] = [];
  private starts: number[] = [];
  private started = 0;
  private turnStart = 0;

  constructor(private readonly gen: GenerationBackend) {
    const original = gen.generate.bind(gen);
    gen.generate = async (req: GenerateRequest) => {
      const index = this.started++;
      this.starts[index] = performance.now() - this.turnStart;
      const seeded = this.base === null ? req : { ...req, seed: this.base + index };
      const r = await original(seeded);
      if (this.base !== null) this.results.push(r);
      return r;
    };
  }

  /** Runs one turn with its generations seeded from `seed`. */
  async turn(seed: number, run: () => Promise<{ status: number; reply: string; clientFirstTokenMs?: number | null }>): Promise<TurnResult> {
    this.base = seed;
    this.results = [];
    this.starts = [];
    this.started = 0;
    const t0 = performance.now();
    this.turnStart = t0;
    try {
      const r = await run();
      return {
        status: r.status,
        reply: r.reply,
        ttftMs: this.results[0]?.timeToFirstTokenMs ?? Number.NaN,
        lastFirstTokenMs: (this.starts.at(-1) ?? 0) + (this.results.at(-1)?.timeToFirstTokenMs ?? Number.NaN),
        clientFirstTokenMs: r.clientFirstTokenMs ?? null,
        ms: performance.now() - t0,
        generations: this.started,
        firstAttempt: this.started > 1 ? (this.results[0]?.text ?? null) : null,
        attempts: this.started > 1 ? this.results.map((x) => x.text) : null,
        completionTokens: this.results.reduce((n, x) => n + x.completionTokens, 0),
        finishReason: this.results.at(-1)?.finishReason,
      };
    } finally {
      this.base = null;
    }
  }

  /** The naive baseline's turn: one generation of the pasted prompt, seeded the same way. */
  naive(seed: number, system: string, text: string, opts: { maxTokens: number; temperature: number; key: string; speaker?: string }): Promise<TurnResult> {
    return this.turn(seed, async () => {
      const r = await this.gen.generate({
        conversationKey: opts.key,
        messages: [
          { role: "system", content: system },
          { role: "user", content: text },
        ],
        maxTokens: opts.maxTokens,
        temperature: opts.temperature,
        minTokens: 1,
        speaker: opts.speaker,
      }).catch((e: unknown) => ({ text: `(failed: ${e instanceof Error ? e.message.slice(0, 80) : e})`, failed: true }));
      return "failed" in r ? { status: 500, reply: r.text } : { status: 200, reply: r.text };
    });
  }
}

/** POST /v1/npc/interact as JSON. */
export async function interactJson(t: TestApp, key: string, body: unknown): Promise<{ status: number; reply: string }> {
  const r = await t.call("POST", "/v1/npc/interact", { key, body });
  return { status: r.status, reply: r.status === 200 ? (r.body.response as string) : `HTTP ${r.status} ${JSON.stringify(r.body)}` };
}

/** POST /v1/npc/interact as SSE: the reply of the `done` event and when the first `token` event arrived. */
export async function interactStream(t: TestApp, key: string, body: unknown): Promise<{ status: number; reply: string; clientFirstTokenMs: number | null }> {
  const t0 = performance.now();
  const res = await t.app.handle(
    new Request("http://localhost/v1/npc/interact", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    }),
  );
  if (!res.ok || !res.body) return { status: res.status, reply: `HTTP ${res.status} ${await res.text()}`, clientFirstTokenMs: null };
  let first: number | null = null;
  let buf = "";
  let done: any = null;
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = buf.indexOf("\n\n")) >= 0) {
      const ev = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const name = /^event: (.*)$/m.exec(ev)?.[1];
      const data = /^data: (.*)$/m.exec(ev)?.[1];
      if (name === "token" && first === null) first = performance.now() - t0;
      if (name === "done" && data) done = JSON.parse(data);
      if (name === "error") return { status: 503, reply: `error ${data}`, clientFirstTokenMs: first };
    }
  }
  return { status: done ? 200 : 503, reply: done?.response ?? "", clientFirstTokenMs: first };
}
