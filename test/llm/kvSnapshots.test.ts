import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import type { ChatMessage, GenerateResult, LlmEngineOptions } from "../../src/llm/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// Real llama.cpp on the suite's random-weight tiny model; KV snapshots in a temp dir per test.
setDefaultTimeout(60_000);

const roots: string[] = [];
const engines: LlmEngine[] = [];
afterAll(async () => {
  for (const e of engines) await e.dispose().catch(() => {});
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function kvRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-kv-test-"));
  roots.push(dir);
  return dir;
}

async function load(opts: Partial<LlmEngineOptions> & { kvDir?: string | null; budgetBytes?: number; restore?: "auto" | "always" } = {}): Promise<LlmEngine> {
  const { kvDir, budgetBytes, restore, ...rest } = opts;
  const engine = await LlmEngine.load({
    modelPath: ensureTinyModel(),
    threads: 1,
    parallel: 1,
    contextSize: 512,
    kvSnapshots: kvDir === null ? null : { dir: kvDir ?? kvRoot(), budgetBytes: budgetBytes ?? 1 << 30, restore: restore ?? "always" },
    ...rest,
  });
  engines.push(engine);
  return engine;
}

const mind = (who: string): ChatMessage => ({ role: "system", content: `You are ${who}, keeper of the mill by the marsh. `.repeat(5) });
const LINES = ["hello there", "where is the king tonight?", "and the ferryman?", "tell me of the river road", "who owes you money?"];

/** A conversation script: the messages of turn `t` given the replies so far (greedy, so replayable). */
function turnMessages(who: string, replies: string[], t: number): ChatMessage[] {
  const messages: ChatMessage[] = [mind(who)];
  for (let i = 0; i < t; i++) messages.push({ role: "user", content: LINES[i] }, { role: "assistant", content: replies[i] });
  messages.push({ role: "user", content: LINES[t] });
  return messages;
}

async function turn(engine: LlmEngine, key: string, who: string, replies: string[], t: number): Promise<GenerateResult> {
  const r = await engine.generate({ conversationKey: key, messages: turnMessages(who, replies, t), maxTokens: 6, minTokens: 6, temperature: 0 });
  replies[t] = r.text;
  return r;
}

function snapshotFiles(root: string): string[] {
  return readdirSync(root).flatMap((fp) => readdirSync(join(root, fp)).map((f) => join(root, fp, f)));
}

describe("conversation snapshots", () => {
  test("greedy generation after a disk restore matches the conversation that never left memory, token for token", async () => {
    const reference = await load({ kvDir: null, parallel: 2 });
    const ref: string[] = [];
    const refTurns = [await turn(reference, "ref", "Ida", ref, 0), await turn(reference, "ref", "Ida", ref, 1), await turn(reference, "ref", "Ida", ref, 2)];

    const engine = await load();
    const mine: string[] = [];
    const other: string[] = [];
    await turn(engine, "p:ida:anna", "Ida", mine, 0);
    for (let t = 1; t < 3; t++) {
      await turn(engine, `p:bob:${t}`, "Bob", other, 0); // one sequence: evicts Anna's conversation
      expect(engine.cachedConversations()).toEqual([`p:bob:${t}`]);
      const r = await turn(engine, "p:ida:anna", "Ida", mine, t);
      expect(r.timings?.warmSource).toBe("conversation");
      expect(r.evaluatedPromptTokens).toBe(refTurns[t].evaluatedPromptTokens); // only the new tokens
      expect(r.evaluatedPromptTokens).toBeLessThan(r.promptTokens / 3);
      expect(r.text).toBe(refTurns[t].text);
      expect(r.completionTokens).toBe(refTurns[t].completionTokens);
    }
    const kv = engine.kvStats()!;
    expect(kv.restores).toBe(2);
    expect(kv.saves).toBeGreaterThanOrEqual(2);
    expect(kv.restoreFailures).toBe(0);
  });

  test("a conversation comes back warm after a restart of the engine", async () => {
    const dir = kvRoot();
    const reference = await load({ kvDir: null });
    const ref: string[] = [];
    await turn(reference, "ref", "Ulf", ref, 0);
    await turn(reference, "ref", "Ulf", ref, 1);
    const expected = await turn(reference, "ref", "Ulf", ref, 2);

    const first = await load({ kvDir: dir, parallel: 2 });
    const replies: string[] = [];
    await turn(first, "p:ulf:1", "Ulf", replies, 0);
    await turn(first, "p:ulf:1", "Ulf", replies, 1);
    await first.dispose(); // saves what is not on disk yet
    expect(snapshotFiles(dir).some((f) => f.endsWith(".state"))).toBe(true);

    const second = await load({ kvDir: dir, parallel: 2 });
    const r = await turn(second, "p:ulf:1", "Ulf", replies, 2);
    expect(r.timings?.warmSource).toBe("conversation");
    expect(r.evaluatedPromptTokens).toBe(expected.evaluatedPromptTokens);
    expect(r.text).toBe(expected.text);
  });

  test("3× more conversations than sequences: every returning turn evaluates no more than its new tokens", async () => {
    const players = ["a", "b", "c", "d", "e", "f"];
    const reference = await load({ kvDir: null, parallel: players.length });
    const engine = await load({ parallel: 2 });
    const refReplies = new Map(players.map((p) => [p, [] as string[]]));
    const replies = new Map(players.map((p) => [p, [] as string[]]));
    for (let t = 0; t < 3; t++) {
      for (const p of players) {
        const expected = await turn(reference, p, `Mira ${p}`, refReplies.get(p)!, t);
        const r = await turn(engine, p, `Mira ${p}`, replies.get(p)!, t);
        if (t > 0) {
          expect(r.evaluatedPromptTokens).toBeLessThanOrEqual(expected.evaluatedPromptTokens);
          expect(r.text).toBe(expected.text);
        }
      }
    }
    expect(engine.kvStats()!.restores).toBeGreaterThanOrEqual(players.length * 2);
  });

  test("erasing a player deletes its snapshots and its resident state", async () => {
    const dir = kvRoot();
    const engine = await load({ kvDir: dir, parallel: 2 });
    const a: string[] = [];
    const b: string[] = [];
    await turn(engine, "proj:mind:gone", "Ida", a, 0);
    await turn(engine, "proj:mind:stays", "Ida", b, 0);
    await engine.kvIdle();
    const metas = () => snapshotFiles(dir).filter((f) => f.endsWith(".meta")).length;
    const before = metas(); // the two conversations and the mind's prefix
    expect(before).toBe(3);
    expect(engine.forgetConversations((k) => k.endsWith(":gone"))).toBe(1);
    expect(metas()).toBe(before - 1);
    expect(engine.cachedConversations()).not.toContain("proj:mind:gone");
    const again = await turn(engine, "proj:mind:gone", "Ida", a, 1);
    // Nothing of the conversation survived: at most the mind's own prompt (no player data in it) is reused.
    expect(["prefix", "none"]).toContain(again.timings!.warmSource);
    expect(engine.kvStats()!.restores).toBeLessThanOrEqual(engine.kvStats()!.prefixRestores);
  });

  test("the disk budget is enforced, least recently used first", async () => {
    const dir = kvRoot();
    const probe = await load({ kvDir: dir });
    await turn(probe, "size", "Ida", [], 0);
    await probe.kvIdle();
    const one = probe.kvStats()!.store.bytes;
    expect(one).toBeGreaterThan(0);
    await probe.dispose();

    const budget = Math.floor(one * 2.5);
    const engine = await load({ kvDir: kvRoot(), budgetBytes: budget });
    // A mind each: players of one mind share its prefix on disk (stateCodec.ts), so five would fit.
    for (const p of ["p1", "p2", "p3", "p4", "p5"]) {
      await turn(engine, p, `Ida ${p}`, [], 0);
      await engine.kvIdle();
    }
    const store = engine.kvStats()!.store;
    expect(store.bytes).toBeLessThanOrEqual(budget);
    expect(store.evictedByBudget).toBeGreaterThanOrEqual(2);
    const oldest = await turn(engine, "p1", "Ida p1", [], 0);
    expect(oldest.timings?.warmSource).not.toBe("conversation");
  });
});

describe("refused snapshots are answered cold, never loaded", () => {
  /** Saves conversation "k" with `source`, then places its files where `target`'s store looks for them. */
  async function transplant(source: LlmEngine, sourceDir: string, targetDir: string, corrupt?: (statePath: string) => void): Promise<void> {
    await turn(source, "k", "Ida", [], 0);
    await source.dispose();
    const files = snapshotFiles(sourceDir);
    const targetFp = readdirSync(targetDir)[0];
    for (const f of files) copyFileSync(f, join(targetDir, targetFp, f.split("/").pop()!));
    if (corrupt) for (const f of snapshotFiles(targetDir).filter((x) => x.endsWith(".state"))) corrupt(f);
  }

  const cases: { name: string; other: Partial<LlmEngineOptions>; corrupt?: (statePath: string) => void }[] = [
    { name: "a snapshot from another model", other: { modelPath: ensureTinyModel(undefined, { seed: 99 }) } },
    { name: "a snapshot from another context size", other: { contextSize: 256 } },
    { name: "a truncated state file", other: {}, corrupt: (p) => truncateSync(p, Math.floor(statSync(p).size / 2)) },
    { name: "a state file with flipped bytes", other: {}, corrupt: (p) => {
      const bytes = new Uint8Array(require("node:fs").readFileSync(p));
      bytes[bytes.length - 10] ^= 0xff;
      require("node:fs").writeFileSync(p, bytes);
    } },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const sourceDir = kvRoot();
      const targetDir = kvRoot();
      const target = await load({ kvDir: targetDir });
      const source = await load({ kvDir: sourceDir, ...c.other });
      await transplant(source, sourceDir, targetDir, c.corrupt);
      const r = await turn(target, "k", "Ida", [], 0);
      expect(r.evaluatedPromptTokens).toBe(r.promptTokens);
      expect(r.timings?.warmSource).toBe("none");
      expect(r.completionTokens).toBe(6);
      const kv = target.kvStats()!;
      expect(kv.restores).toBe(0);
      expect(kv.store.refused).toBe(1);
    });
  }
});

describe("mind prefix snapshots", () => {
  test("a new player's first turn starts from the mind's prompt evaluated in the background", async () => {
    const engine = await load({ parallel: 2 });
    engine.warmMind(mind("Oswin").content);
    await engine.kvIdle();
    expect(engine.kvStats()!.prefixSaves).toBe(1);
    // Fill both sequences with other conversations so the prefix must come from disk.
    await turn(engine, "x1", "Xan", [], 0);
    await turn(engine, "x2", "Xeb", [], 0);
    await engine.kvIdle();
    const cold = await load({ kvDir: null });
    const reference = await turn(cold, "new", "Oswin", [], 0);
    const r = await turn(engine, "new", "Oswin", [], 0);
    expect(r.timings?.warmSource).toBe("prefix");
    expect(r.evaluatedPromptTokens).toBeLessThan(r.promptTokens / 3);
    expect(r.evaluatedPromptTokens).toBeGreaterThanOrEqual(engineTokens(engine, LINES[0]));
    expect(r.text).toBe(reference.text);
    expect(engine.stats().prefixCopies).toBe(1);
  });

  test("a first turn on an unknown mind warms it for the next new player", async () => {
    const engine = await load({ parallel: 1 });
    const first = await turn(engine, "n1", "Gerd", [], 0);
    expect(first.evaluatedPromptTokens).toBe(first.promptTokens);
    await engine.kvIdle();
    await turn(engine, "other", "Xan", [], 0); // takes the only sequence
    const second = await turn(engine, "n2", "Gerd", [], 0);
    expect(second.timings?.warmSource).toBe("prefix");
    expect(second.evaluatedPromptTokens).toBeLessThan(second.promptTokens / 3);
  });
});

describe("never slower than cold", () => {
  test("a snapshot that would save only a few tokens beyond what the sequence holds is not restored", async () => {
    const engine = await load({ restore: "auto" });
    engine.warmMind(mind("Ida").content);
    await engine.kvIdle();
    // Same mind, almost the same first line: Bert's cache holds all of Anna's first turn but a few tokens.
    const anna: string[] = [];
    await turn(engine, "anna", "Ida", anna, 0);
    await engine.kvIdle();
    const bertLine = `${LINES[0]} x`; // one character more: everything before it is shared
    await engine.generate({ conversationKey: "bert", messages: [mind("Ida"), { role: "user", content: bertLine }], maxTokens: 6, minTokens: 6, temperature: 0 });
    await engine.kvIdle();
    const r = await turn(engine, "anna", "Ida", anna, 1);
    expect(r.timings!.warmSource).toBe("prefix"); // what the sequence held, not Anna's snapshot
    const kv = engine.kvStats()!;
    expect(kv.restores).toBe(0);
    expect(kv.skippedCheaper).toBe(1);
  });

  test("auto policy skips a restore that would save too few tokens; an unwritable store only skips saving", async () => {
    const dir = kvRoot();
    const file = join(dir, "not-a-dir");
    require("node:fs").writeFileSync(file, "x");
    const engine = await load({ kvDir: file, restore: "auto" });
    const r = await turn(engine, "k", "Ida", [], 0);
    expect(r.completionTokens).toBe(6);
    await engine.kvIdle();
    const kv = engine.kvStats()!;
    expect(kv.store.writable).toBe(false);
    expect(kv.saves).toBe(0);
  });
});

function engineTokens(engine: LlmEngine, text: string): number {
  return engine.countTokens(text);
}
