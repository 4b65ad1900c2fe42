// A remote pool's exact token counts: made by a server's /tokenize (many texts a call), kept in SQLite across
// restarts by the model they are of, and never read by another model. REAL llama-server processes on two tiny
// random-weight GGUFs whose vocabularies differ (the second knows more words, so the same text is fewer tokens),
// a real SQLite file (the server's own migrations). Nothing here samples: counts and calls only.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { llamaServerBinary, startLlamaServer, warnNoLlamaServer, type LlamaServer } from "../support/llamaServer.ts";
import { tempDir } from "../support/testApp.ts";
import { openDatabase, type Db } from "../../src/db/openDatabase.ts";
import { RemotePool } from "../../src/generation/remote/RemotePool.ts";
import { sqliteTokenCounts } from "../../src/generation/remote/tokenCountStore.ts";

setDefaultTimeout(120_000);

const BIN = llamaServerBinary();
if (!BIN) warnNoLlamaServer("test/generation/tokenCounts.test.ts (exact token counts kept by model)");
const suite = BIN ? describe : describe.skip;

const WORDS = "harbour lantern ferryman river toll barge".split(" ");
const TEXTS = [
  "The harbour lantern burned all night while the ferryman counted the toll.",
  "",
  " leading space, trailing space ",
  "naïve Ünicode 東京 🙂 and a byte run \u0001\u0002",
  "<|im_end|> </s> <s> look like markers",
  "-1 -1 -1: the number the batch splits at, as text",
  "river barge river barge ".repeat(60),
  "line one\nline two\n\n\ttabbed",
];

let plain: LlamaServer;
let wordy: LlamaServer;
let dir: string;
let db: Db;
const calls: string[] = [];
const realFetch = globalThis.fetch;

beforeAll(async () => {
  if (!BIN) return;
  plain = await startLlamaServer({ binary: BIN, model: ensureTinyModel(undefined, { nCtx: 512 }), parallel: 1, slotContext: 512 });
  wordy = await startLlamaServer({ binary: BIN, model: ensureTinyModel(undefined, { nCtx: 512, extraWords: WORDS }), parallel: 1, slotContext: 512 });
  dir = tempDir("lorehold-token-counts-");
  db = openDatabase(join(dir, "lorehold.db"));
  globalThis.fetch = Object.assign((input: string | URL | Request, init?: RequestInit) => {
    calls.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return realFetch(input, init);
  }, realFetch);
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await plain?.stop();
  await wordy?.stop();
});

const poolOn = async (server: LlamaServer, store = sqliteTokenCounts(db)) => {
  const pool = new RemotePool({
    backends: [{ url: server.url, model: "tiny", apiKey: null, maxConcurrent: 1, weight: 1, timeoutMs: 30_000, kind: "llama-server" }],
    defaultTimeoutMs: 30_000,
    fallbackContextSize: 512,
    countStore: store,
  });
  await pool.probeAll();
  return pool;
};
/** One call a text, one after another (llama-server's few HTTP threads each stay with a kept-alive connection). */
const countEach = async (pool: RemotePool, texts: string[]) => {
  const out: (number | null)[] = [];
  for (const t of texts) out.push(await pool.backends[0].tokenize(t));
  return out;
};
const tokenizeCalls = () => calls.filter((c) => c === "/tokenize").length;

suite("a remote pool's kept token counts", () => {
  test("many texts in one /tokenize call count exactly as each alone", async () => {
    const pool = await poolOn(plain);
    const alone = await countEach(pool, TEXTS);
    expect(alone.every((n) => typeof n === "number")).toBe(true);
    expect(await pool.backends[0].tokenizeMany(TEXTS)).toEqual(alone as number[]);
    const before = tokenizeCalls();
    expect(await pool.prepareCounts(TEXTS)).toBe(true);
    // the tokenizer's fingerprint, then every text in one batch
    expect(tokenizeCalls() - before).toBe(2);
    expect(TEXTS.map((t) => pool.countTokens(t))).toEqual(alone as number[]);
    await pool.dispose();
  });

  test("a restarted pool on the same model reads the kept counts: no text is asked again", async () => {
    const first = await poolOn(plain);
    expect(await first.prepareCounts(TEXTS)).toBe(true);
    const exact = TEXTS.map((t) => first.countTokens(t));
    await first.dispose();
    const again = await poolOn(plain);
    const before = tokenizeCalls();
    expect(await again.prepareCounts(TEXTS)).toBe(true);
    expect(tokenizeCalls() - before).toBe(1); // the fingerprint only
    expect(TEXTS.map((t) => again.countTokens(t))).toEqual(exact);
    await again.dispose();
  });

  test("a pool on another model never reads the first model's counts", async () => {
    const a = await poolOn(plain);
    await a.prepareCounts(TEXTS);
    const byPlain = TEXTS.map((t) => a.countTokens(t));
    await a.dispose();
    const b = await poolOn(wordy);
    const before = tokenizeCalls();
    expect(await b.prepareCounts(TEXTS)).toBe(true);
    expect(tokenizeCalls() - before).toBe(2); // its own fingerprint, then every text counted by its own tokenizer
    const byWordy = await countEach(b, TEXTS);
    expect(TEXTS.map((t) => b.countTokens(t))).toEqual(byWordy as number[]);
    // the two models count the word-heavy texts differently, so a count read across would show
    expect(byWordy[0]).toBeLessThan(byPlain[0]);
    expect(byWordy[6]).toBeLessThan(byPlain[6]);
    await b.dispose();
    // and the first model's counts are still its own
    const c = await poolOn(plain);
    await c.prepareCounts(TEXTS);
    expect(TEXTS.map((t) => c.countTokens(t))).toEqual(byPlain);
    await c.dispose();
  });

  test("the store keeps a bounded number of rows, dropping the oldest", async () => {
    const small = sqliteTokenCounts(db, 50);
    for (let i = 0; i < 12; i++) small.put("bounded", Array.from({ length: 1000 }, (_, j) => [`text ${i}:${j}`, j] as [string, number]));
    const n = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM token_counts WHERE tokenizer = 'bounded'").get()!.n;
    expect(n).toBeLessThan(12_000);
    expect(small.get("bounded", "text 11:999")).toBe(999);
    expect(small.get("bounded", "text 0:0")).toBeUndefined();
  });
});
