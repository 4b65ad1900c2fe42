import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { readHeader, readMeta, writeMeta, type SnapshotHeader } from "../../src/llm/kv/snapshotFile.ts";
import { packState, unpackState } from "../../src/llm/kv/stateCodec.ts";
import type { ChatMessage, GenerateResult, LlmEngineOptions } from "../../src/llm/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// Snapshots packed on disk (zstd, a conversation against its mind's prefix state): real llama.cpp on
// the suite's random-weight tiny model, greedy, so a restored conversation must continue exactly as
// one that never left memory.
setDefaultTimeout(60_000);

const roots: string[] = [];
const engines: LlmEngine[] = [];
afterAll(async () => {
  for (const e of engines) await e.dispose().catch(() => {});
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function kvRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-kvpack-test-"));
  roots.push(dir);
  return dir;
}

async function load(opts: Partial<LlmEngineOptions> & { kvDir?: string | null } = {}): Promise<LlmEngine> {
  const { kvDir, ...rest } = opts;
  const engine = await LlmEngine.load({
    modelPath: ensureTinyModel(),
    threads: 1,
    parallel: 1,
    contextSize: 512,
    kvSnapshots: kvDir === null ? null : { dir: kvDir ?? kvRoot(), budgetBytes: 1 << 30, restore: "always" },
    ...rest,
  });
  engines.push(engine);
  return engine;
}

const mind = (who: string): ChatMessage => ({ role: "system", content: `You are ${who}, keeper of the mill by the marsh. `.repeat(5) });
const LINES = ["hello there", "where is the king tonight?", "and the ferryman?"];

async function turn(engine: LlmEngine, key: string, who: string, replies: string[], t: number): Promise<GenerateResult> {
  const messages: ChatMessage[] = [mind(who)];
  for (let i = 0; i < t; i++) messages.push({ role: "user", content: LINES[i] }, { role: "assistant", content: replies[i] });
  messages.push({ role: "user", content: LINES[t] });
  const r = await engine.generate({ conversationKey: key, messages, maxTokens: 6, minTokens: 6, temperature: 0 });
  replies[t] = r.text;
  return r;
}

function headers(root: string): { path: string; header: SnapshotHeader }[] {
  return readdirSync(root).flatMap((fp) =>
    readdirSync(join(root, fp))
      .filter((f) => f.endsWith(".meta"))
      .map((f) => ({ path: join(root, fp, f), header: readHeader(join(root, fp, f))! })),
  );
}

describe("packed snapshots", () => {
  test("a conversation is stored against its mind's prefix: far smaller than its state, and restored token for token", async () => {
    const reference = await load({ kvDir: null });
    const ref: string[] = [];
    const expected = [await turn(reference, "ref", "Oswin", ref, 0), await turn(reference, "ref", "Oswin", ref, 1)];

    const dir = kvRoot();
    const engine = await load({ kvDir: dir });
    engine.warmMind(mind("Oswin").content);
    await engine.kvIdle();
    const mine: string[] = [];
    await turn(engine, "anna", "Oswin", mine, 0);
    await engine.kvIdle();
    await turn(engine, "bob", "Xan", [], 0); // the only sequence: Anna's conversation leaves memory
    await engine.kvIdle();

    const anna = headers(dir).find((h) => h.header.kind === "conversation" && h.header.key.includes("anna"))!;
    expect(anna.header.base).not.toBeNull();
    // The mind's prompt is ~80 % of Anna's tokens; its rows are stored once, in the prefix snapshot.
    // Random-weight KV values barely compress on their own (zstd alone: ~0.9), so half is a wide margin.
    expect(anna.header.stateBytes).toBeLessThan(anna.header.rawBytes * 0.5);

    const r = await turn(engine, "anna", "Oswin", mine, 1);
    expect(r.timings?.warmSource).toBe("conversation");
    expect(r.evaluatedPromptTokens).toBe(expected[1].evaluatedPromptTokens);
    expect(r.text).toBe(expected[1].text);
    expect(engine.kvStats()!.restoreFailures).toBe(0);
  });

  test("a conversation whose prefix snapshot changed is refused and answered without it, never loaded", async () => {
    const reference = await load({ kvDir: null });
    const ref: string[] = [];
    await turn(reference, "ref", "Oswin", ref, 0);
    const expected = await turn(reference, "ref", "Oswin", ref, 1);

    const dir = kvRoot();
    const engine = await load({ kvDir: dir });
    engine.warmMind(mind("Oswin").content);
    await engine.kvIdle();
    const mine: string[] = [];
    await turn(engine, "anna", "Oswin", mine, 0);
    await engine.kvIdle();
    await engine.dispose();

    // The prefix state is replaced by another, validly written one (as a re-warmed prompt would be).
    const prefix = headers(dir).find((h) => h.header.kind === "prefix")!;
    const statePath = prefix.path.replace(/\.meta$/, ".state");
    const other = new Uint8Array(prefix.header.rawBytes).fill(7);
    const packed = await packState(other, null);
    writeFileSync(statePath, packed);
    const meta = (await readMeta(prefix.path))!;
    await writeMeta(prefix.path, statePath, { ...prefix.header, rawBytes: other.length, rawHash: Bun.hash.xxHash64(other).toString(16) }, meta.tokens);

    const again = await load({ kvDir: dir });
    const r = await turn(again, "anna", "Oswin", mine, 1);
    expect(r.timings?.warmSource).not.toBe("conversation");
    expect(r.text).toBe(expected.text);
    expect(again.kvStats()!.store.refused).toBeGreaterThanOrEqual(1);
  });
});

describe("state codec", () => {
  test("packs against a base and unpacks exactly; the wrong base is caught by the caller's checksum", async () => {
    const base = crypto.getRandomValues(new Uint8Array(300_000));
    const raw = new Uint8Array(500_000);
    raw.set(base.subarray(0, 250_000), 0);
    raw.set(crypto.getRandomValues(new Uint8Array(250_000)), 250_000);
    const alone = await packState(raw, null);
    const against = await packState(raw, base);
    // random bytes do not compress: only the shared run can shrink
    expect(alone.length).toBeGreaterThan(raw.length * 0.95);
    expect(against.length).toBeLessThan(raw.length * 0.55);
    expect(Buffer.compare(Buffer.from(await unpackState(against, base)), Buffer.from(raw))).toBe(0);
    const wrong = crypto.getRandomValues(new Uint8Array(300_000));
    const unpacked = await unpackState(against, wrong).catch(() => null);
    expect(unpacked === null || Bun.hash.xxHash64(unpacked) !== Bun.hash.xxHash64(raw)).toBe(true);
  });
});

describe("quantized KV cache", () => {
  test("q8_0 generates, keeps a conversation warm across eviction, and its state is about half of f16's", async () => {
    const sizes: Record<string, number> = {};
    // Heads of 32 values: a q8_0 block is 32 values, and llama.cpp refuses a K cache whose head it does not divide.
    const modelPath = ensureTinyModel(undefined, { nHeads: 2, nHeadsKv: 2 });
    for (const type of ["f16", "q8_0"] as const) {
      const dir = kvRoot();
      const engine = await load({ kvDir: dir, kvCacheType: type, flashAttention: true, modelPath });
      const mine: string[] = [];
      const first = await turn(engine, "anna", "Oswin", mine, 0);
      expect(first.completionTokens).toBe(6);
      await engine.kvIdle();
      await turn(engine, "bob", "Xan", [], 0);
      const again = await turn(engine, "anna", "Oswin", mine, 1);
      expect(again.timings?.warmSource).toBe("conversation");
      expect(again.completionTokens).toBe(6);
      await engine.kvIdle();
      const anna = headers(dir).find((h) => h.header.kind === "conversation" && h.header.key.includes("anna"))!;
      sizes[type] = anna.header.rawBytes / anna.header.tokenCount;
    }
    // q8_0 is 34 bytes per 32 values against f16's 64: 0.53 of the bytes per token, plus fixed headers.
    expect(sizes.q8_0 / sizes.f16).toBeGreaterThan(0.45);
    expect(sizes.q8_0 / sizes.f16).toBeLessThan(0.62);
  });
});

test("a KV cache type the model cannot take (heads of 16 values) falls back to f16: the engine still generates", async () => {
  const engine = await load({ kvCacheType: "q8_0", flashAttention: true });
  const r = await turn(engine, "anna", "Oswin", [], 0);
  expect(r.completionTokens).toBe(6);
});
