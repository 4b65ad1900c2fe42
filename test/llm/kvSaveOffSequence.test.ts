import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmEngine } from "../../src/llm/LlmEngine.ts";
import { SnapshotStore } from "../../src/llm/kv/SnapshotStore.ts";
import type { ChatMessage, GenerateResult } from "../../src/llm/types.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

// A `parallel: 1` server saves each conversation after its turn. Only taking the state out needs the sequence;
// packing it (zstd, seconds for a real model's state on a busy box) must not hold up the next player's turn.
// The packing is held back on purpose through the writer's test hook (a gate the test opens), so the order of
// events is fixed whatever the CPU: no assertion here depends on a duration. Real llama.cpp on the suite's
// random-weight tiny model; greedy decoding, compared with a conversation that never left memory.
setDefaultTimeout(120_000);

const roots: string[] = [];
const engines: LlmEngine[] = [];
afterAll(async () => {
  for (const e of engines) await e.dispose().catch(() => {});
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A gate the packing of states (of `kind` only, when given) waits at, and the keys that reached it. */
function packGate(kind?: "conversation" | "prefix") {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached: string[] = [];
  return {
    reached,
    open,
    hook: async (k: string, key: string) => {
      if (kind && k !== kind) return;
      reached.push(key);
      await opened;
    },
  };
}

async function load(opts: { kv: boolean; parallel?: number; long?: boolean; pendingSaves?: number; beforePack?: (kind: "conversation" | "prefix", key: string) => Promise<void> }): Promise<LlmEngine> {
  let kvSnapshots = null;
  if (opts.kv) {
    const dir = mkdtempSync(join(tmpdir(), "lorehold-kv-off-"));
    roots.push(dir);
    kvSnapshots = { dir, budgetBytes: 1 << 30, restore: "always" as const, pendingSaves: opts.pendingSaves, beforePack: opts.beforePack };
  }
  const modelPath = opts.long ? ensureTinyModel(undefined, { nCtx: 2048 }) : ensureTinyModel();
  const warmChunkTokens = 64;
  const engine = await LlmEngine.load({ modelPath, threads: 1, parallel: opts.parallel ?? 1, contextSize: opts.long ? 2048 : 512, kvSnapshots: kvSnapshots && { ...kvSnapshots, warmChunkTokens } });
  engines.push(engine);
  return engine;
}

const mind = (who: string): ChatMessage => ({ role: "system", content: `You are ${who}, keeper of the mill by the marsh. `.repeat(5) });
const LINES = ["hello there", "where is the king tonight?", "and the ferryman?"];

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

/** Until `cond` holds (bounded: a stall fails the test rather than hanging it). */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!cond() && Date.now() < deadline) await Bun.sleep(5);
}

describe("a conversation's save off its sequence", () => {
  test("the next player's turn does not wait for the last conversation's packing, and the state restores exactly", async () => {
    const reference = await load({ kv: false, parallel: 2 });
    const ref: string[] = [];
    await turn(reference, "ref", "Ida", ref, 0);
    const refSecond = await turn(reference, "ref", "Ida", ref, 1);

    const gate = packGate();
    const engine = await load({ kv: true, beforePack: gate.hook });
    const anna: string[] = [];
    await turn(engine, "p:ida:anna", "Ida", anna, 0);
    expect(anna[0]).toBe(ref[0]);
    // Another player right away: the one sequence is Anna's until her state is out of it, then Bob's.
    const bob = await turn(engine, "p:bob:1", "Bob", [], 0);
    expect(bob.completionTokens).toBe(6);
    // Bob's turn ended while Anna's state was still waiting to be packed: nothing written yet.
    expect(engine.kvStats()!.saves).toBe(0);
    expect(gate.reached).toContain("p:ida:anna");

    // Anna comes back while her save is still unwritten: her restore waits for it rather than starting cold.
    const again = turn(engine, "p:ida:anna", "Ida", anna, 1);
    await until(() => gate.reached.includes("p:bob:1"));
    gate.open();
    const second = await again;
    expect(second.timings?.warmSource).toBe("conversation");
    // Restored exactly: the same tokens reused and evaluated, the same greedy continuation, as never evicted.
    expect(second.evaluatedPromptTokens).toBe(refSecond.evaluatedPromptTokens);
    expect(second.text).toBe(refSecond.text);
    await engine.kvIdle();
    const kv = engine.kvStats()!;
    expect(kv.saves).toBeGreaterThanOrEqual(2);
    expect(kv.saveFailures).toBe(0);
    expect(kv.savesInPlace).toBe(0);
  });

  test("past the bound of taken states, a save is written before the sequence is given back", async () => {
    const gate = packGate();
    const engine = await load({ kv: true, pendingSaves: 1, beforePack: gate.hook });
    await turn(engine, "p:ida:a", "Ida", [], 0);
    await turn(engine, "p:bob:b", "Bob", [], 0); // Ida's state taken and waiting: the one place is used
    await until(() => gate.reached.includes("p:bob:b"));
    // Bob's save could not wait beside Ida's: it holds the sequence until written, so Cole's turn waits for it.
    let coleDone = false;
    const cole = turn(engine, "p:cole:c", "Cole", [], 0).then((r) => ((coleDone = true), r));
    await Bun.sleep(300);
    expect(coleDone).toBe(false);
    gate.open();
    expect((await cole).completionTokens).toBe(6);
    await engine.kvIdle();
    const kv = engine.kvStats()!;
    expect(kv.savesInPlace).toBeGreaterThanOrEqual(1);
    expect(kv.saves).toBeGreaterThanOrEqual(3);
    expect(kv.saveFailures).toBe(0);
  });

  test("a conversation erased while its save waits to be written leaves no snapshot", async () => {
    const gate = packGate();
    const engine = await load({ kv: true, beforePack: gate.hook });
    const anna: string[] = [];
    await turn(engine, "p:ida:anna", "Ida", anna, 0);
    await turn(engine, "p:bob:1", "Bob", [], 0);
    await until(() => gate.reached.includes("p:ida:anna"));
    engine.forgetConversations((key) => key === "p:ida:anna");
    gate.open();
    await engine.kvIdle();
    expect(engine.kvStats()!.saves).toBe(1); // Bob's
    const id = SnapshotStore.id("conversation", "p:ida:anna");
    expect(readdirSync(roots.at(-1)!, { recursive: true, encoding: "utf8" }).filter((f) => f.includes(id))).toEqual([]);
    const back = await turn(engine, "p:ida:anna", "Ida", anna, 1);
    expect(back.timings?.warmSource).not.toBe("conversation");
  });

  test("a mind's prompt warmed to the end is packed off the sequence: a turn meanwhile does not wait for it", async () => {
    const gate = packGate("prefix");
    const engine = await load({ kv: true, long: true, beforePack: gate.hook });
    const LONG = `You are Ida, keeper of the mill by the marsh. ${"The mill by the marsh grinds barley for the abbey. ".repeat(40)}`;
    engine.warmMind(LONG);
    await until(() => gate.reached.length > 0); // evaluated whole, its state taken, waiting to be packed
    const ada = await turn(engine, "p:ada:1", "Ada", [], 0);
    expect(ada.completionTokens).toBe(6);
    expect(engine.kvStats()!.prefixSaves).toBe(0); // the turn ended before the mind's prompt was written
    gate.open();
    await engine.kvIdle();
    expect(engine.kvStats()!.prefixSaves).toBeGreaterThanOrEqual(1);
    const messages: ChatMessage[] = [
      { role: "system", content: LONG },
      { role: "user", content: "who owes you money?" },
    ];
    const newcomer = await engine.generate({ conversationKey: "p:ida:new", messages, maxTokens: 2, temperature: 0 });
    expect(newcomer.timings?.warmSource).toBe("prefix");
    expect(newcomer.evaluatedPromptTokens).toBeLessThan(newcomer.promptTokens / 4);
  });
});
