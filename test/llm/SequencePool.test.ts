import { describe, expect, test } from "bun:test";
import { SequencePool } from "../../src/llm/SequencePool.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("SequencePool", () => {
  test("a returning key gets its own sequence back", async () => {
    const pool = new SequencePool(["s0", "s1"]);
    const a = await pool.acquire("a");
    pool.release(a);
    const b = await pool.acquire("b");
    pool.release(b);
    expect((await pool.acquire("a")).value).toBe(a.value);
  });

  test("evicts the least recently used idle sequence", async () => {
    const pool = new SequencePool(["s0", "s1"]);
    for (const k of ["a", "b"]) pool.release(await pool.acquire(k));
    pool.release(await pool.acquire("a")); // b is now the LRU
    const c = await pool.acquire("c");
    expect(pool.keys().sort()).toEqual(["a", "c"]);
    expect(c.key).toBe("c");
  });

  test("FIFO queue when every sequence is busy", async () => {
    const pool = new SequencePool(["s0"]);
    const first = await pool.acquire("a");
    const order: string[] = [];
    const waits = ["b", "c", "d"].map((k) => pool.acquire(k).then((s) => { order.push(k); return s; }));
    expect(pool.queueDepth).toBe(3);
    pool.release(first);
    for (const w of waits) pool.release(await w);
    expect(order).toEqual(["b", "c", "d"]);
    expect(pool.queueDepth).toBe(0);
  });

  test("same conversation waits for its own busy sequence; others pass", async () => {
    const pool = new SequencePool(["s0", "s1"]);
    const a1 = await pool.acquire("a");
    const a2 = pool.acquire("a");
    const b = await pool.acquire("b"); // not blocked behind a2: a2 waits for a's own sequence
    expect(b.value).not.toBe(a1.value);
    pool.release(a1);
    expect((await a2).value).toBe(a1.value);
  });

  test("an aborted waiter leaves the queue", async () => {
    const pool = new SequencePool(["s0"]);
    const held = await pool.acquire("a");
    const ac = new AbortController();
    const waiting = pool.acquire("b", ac.signal);
    const next = pool.acquire("c");
    ac.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(pool.queueDepth).toBe(1);
    pool.release(held);
    expect((await next).key).toBe("c");
    await tick();
  });
});
