import { describe, expect, test } from "bun:test";
import { HashRing } from "../../src/generation/remote/HashRing.ts";
import { CircuitBreaker } from "../../src/generation/remote/CircuitBreaker.ts";
import { StreamCleaner } from "../../src/generation/remote/StreamCleaner.ts";
import { sseData } from "../../src/generation/remote/sseEvents.ts";
import { SlotMap } from "../../src/generation/remote/SlotMap.ts";
import { cleanReply } from "../../src/llm/cleanReply.ts";
import { schemaProblem } from "../../src/generation/structured.ts";

const nodes = [
  { id: "a", weight: 1 },
  { id: "b", weight: 1 },
  { id: "c", weight: 2 },
];
const keys = Array.from({ length: 4000 }, (_, i) => `project:mind:player-${i}`);

describe("consistent hashing with bounded load", () => {
  const ring = new HashRing(nodes);
  test("a key always maps to the same node; its failover order lists every node once", () => {
    for (const k of keys.slice(0, 50)) {
      expect(ring.pick(k, () => true, () => 0)!.id).toBe(ring.pick(k, () => true, () => 0)!.id);
      expect(ring.order(k).map((n) => n.id).sort()).toEqual(["a", "b", "c"]);
    }
  });
  test("spread follows the weights (within 15%)", () => {
    const n: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (const k of keys) n[ring.pick(k, () => true, () => 0)!.id]++;
    expect(n.a / keys.length).toBeCloseTo(0.25, 1);
    expect(n.b / keys.length).toBeCloseTo(0.25, 1);
    expect(n.c / keys.length).toBeCloseTo(0.5, 1);
  });
  test("removing a node moves only that node's keys", () => {
    const before = new Map(keys.map((k) => [k, ring.pick(k, () => true, () => 0)!.id]));
    let moved = 0;
    for (const k of keys) {
      const now = ring.pick(k, (x) => x.id !== "b", () => 0)!.id;
      if (now !== before.get(k)) {
        moved++;
        expect(before.get(k)).toBe("b");
      }
    }
    expect(moved).toBe([...before.values()].filter((v) => v === "b").length);
  });
  test("a node over its bound passes keys on to the next; none eligible → null", () => {
    const load = { a: 0, b: 0, c: 0 } as Record<string, number>;
    const key = keys.find((k) => ring.pick(k, () => true, () => 0)!.id === "a")!;
    load.a = 10;
    expect(ring.pick(key, () => true, (x) => load[x.id])!.id).not.toBe("a");
    expect(ring.pick(key, () => false, () => 0)).toBeNull();
  });
});

describe("circuit breaker", () => {
  test("3 failures open it; after the cooldown one trial; success closes, failure doubles the cooldown", () => {
    let now = 0;
    const b = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 100, maxCooldownMs: 1000, now: () => now });
    b.failure();
    b.failure();
    expect(b.state).toBe("closed");
    b.failure();
    expect([b.state, b.allows()]).toEqual(["open", false]);
    now = 100;
    expect(b.state).toBe("half-open");
    expect(b.begin().trial).toBe(true);
    expect(b.allows()).toBe(false); // one trial at a time
    b.failure();
    now = 250;
    expect(b.state).toBe("open"); // cooldown now 200 ms
    now = 300;
    expect(b.allows()).toBe(true);
    b.begin();
    b.success();
    expect(b.state).toBe("closed");
  });
});

describe("stream cleaning matches cleanReply", () => {
  const cases: Array<[string, string[]]> = [
    ["leading space trimmed", ["  ", " Hello", " there"]],
    ["marker split over pieces cuts the rest", ["Hi fr", "iend<|im", "_end|>\n<|im_start|>user", " more"]],
    ["a lone < is not held forever", ["a < b", " and c"]],
    ["<s> dropped", ["<s", ">Well, ", "yes"]],
    ["llama3 marker", ["Ok.", "<|eot_id|>", "junk"]],
  ];
  for (const [name, pieces] of cases) {
    test(name, () => {
      const c = new StreamCleaner();
      const out = pieces.map((p) => c.push(p)).join("") + c.flush();
      expect(out.trimEnd()).toBe(cleanReply(pieces.join("")));
      for (const m of ["<|im_end|>", "<|im_start|>", "<|eot_id|>"]) expect(out).not.toContain(m);
    });
  }
});

describe("SSE data", () => {
  test("events split across reads, CRLF, comments, multi-line data", async () => {
    const parts = [": keep-alive\n\ndata: {\"a\"", ":1}\r\n\r\ndata: x\ndata: y\n\n", "data: [DONE]\n\n"];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    });
    const got: string[] = [];
    for await (const d of sseData(body)) got.push(d);
    expect(got).toEqual(['{"a":1}', "x\ny", "[DONE]"]);
  });
});

describe("llama-server slots", () => {
  test("a conversation gets its slot back; a newcomer takes the least recently used idle slot; all busy → -1", () => {
    const s = new SlotMap(2);
    const a = s.acquire("A");
    s.release(a);
    const b = s.acquire("B");
    expect(b).not.toBe(a);
    s.release(b);
    expect(s.acquire("A")).toBe(a);
    expect(s.acquire("C")).toBe(b); // B's slot was the idle one
    expect(s.acquire("D")).toBe(-1);
  });
});

describe("schema validation", () => {
  const schema = { type: "object", properties: { n: { enum: [1, 2] } }, required: ["n"] };
  test.each([
    ['{"n":1}', null],
    ['{"n":3}', "/n must be equal to one of the allowed values"],
    ["{}", "the value must have required property 'n'"],
    ["{nope", "the reply is not valid JSON"],
  ])("%s", (text, problem) => expect(schemaProblem(text, schema)).toBe(problem));
});
