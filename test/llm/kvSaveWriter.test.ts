import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SaveWriter } from "../../src/llm/kv/SaveWriter.ts";
import { SnapshotStore } from "../../src/llm/kv/SnapshotStore.ts";

// The writer on a real snapshot store; the states are bytes written where llama.cpp would write its state file
// (the writer only moves and packs them), each distinct, so which one ended up on disk is unambiguous.

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function store(): SnapshotStore {
  const dir = mkdtempSync(join(tmpdir(), "lorehold-kv-writer-"));
  roots.push(dir);
  return new SnapshotStore(dir, "fp", 1 << 30);
}

/** A state of `n` bytes whose content names it. */
const state = (label: number, n = 256 * 1024) => async (path: string) => {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = (i * 31 + label * 7) & 0xff;
  writeFileSync(path, bytes);
};

function gates() {
  const open = new Map<string, () => void>();
  const waits = new Map<string, Promise<void>>();
  const gate = (name: string) => {
    if (!waits.has(name)) waits.set(name, new Promise<void>((r) => open.set(name, r)));
    return waits.get(name)!;
  };
  return { gate, open: (name: string) => (gate(name), open.get(name)!()) };
}

const none = async () => null;

describe("SaveWriter", () => {
  test("two saves of one key: the later state is the one on disk, even when the earlier one's packing is slower", async () => {
    const s = store();
    const g = gates();
    let n = 0;
    const writer = new SaveWriter(s, { beforePack: () => (n++ === 0 ? g.gate("first") : Promise.resolve()) });
    const first = await writer.save("conversation", "k", [1, 2, 3], state(1), none);
    const second = await writer.save("conversation", "k", [1, 2, 3, 4, 5], state(2), none);
    expect(first && second).toBeTruthy();
    // The second waits behind the first (in order), so nothing is written while the first is held back.
    let secondDone = false;
    void second!.done.then(() => (secondDone = true));
    await Bun.sleep(50);
    expect(secondDone).toBe(false);
    expect(await s.lookup("conversation", "k")).toBeNull();
    g.open("first");
    await writer.settle();
    const meta = await s.lookup("conversation", "k");
    expect(meta?.tokens).toEqual([1, 2, 3, 4, 5]);
    let loaded: Uint8Array | null = null;
    expect(await s.load(meta!, async (path) => void (loaded = new Uint8Array(await Bun.file(path).arrayBuffer())))).toBe(true);
    const expected = join(roots.at(-1)!, "expected");
    await state(2)(expected);
    expect(Buffer.compare(loaded!, new Uint8Array(await Bun.file(expected).arrayBuffer()))).toBe(0);
  });

  test("settled(key) waits for that key's saves only; the bound puts a save in place", async () => {
    const s = store();
    const g = gates();
    const writer = new SaveWriter(s, { pendingSaves: 1, beforePack: (_k, key) => (key === "slow" ? g.gate("slow") : Promise.resolve()) });
    const slow = await writer.save("conversation", "slow", [1], state(3), none);
    expect(slow?.inPlace).toBe(false);
    await writer.settled("conversation", "other"); // nothing of its own pending: at once
    let settled = false;
    void writer.settled("conversation", "slow").then(() => (settled = true));
    // The one place is taken: this save is written before `save` returns (the sequence would wait for it).
    const inPlace = await writer.save("conversation", "fast", [2], state(4), none);
    expect(inPlace?.inPlace).toBe(true);
    expect((await s.lookup("conversation", "fast"))?.tokens).toEqual([2]);
    expect(settled).toBe(false);
    g.open("slow");
    await writer.settled("conversation", "slow");
    expect((await s.lookup("conversation", "slow"))?.tokens).toEqual([1]);
    expect(writer.pendingCount).toBe(0);
  });

  test("a cancelled save writes nothing, and no temporary file is left", async () => {
    const s = store();
    const g = gates();
    const writer = new SaveWriter(s, { beforePack: () => g.gate("held") });
    await writer.save("conversation", "p:gone", [1, 2], state(5), none);
    writer.cancel((_kind, key) => key === "p:gone");
    g.open("held");
    await writer.settle();
    expect(await s.lookup("conversation", "p:gone")).toBeNull();
    expect(readdirSync(s.dir)).toEqual([]);
  });
});
