import { expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock.ts";
import { ApiError } from "../../src/core/errors.ts";
import { RateLimiter } from "../../src/ratelimit/RateLimiter.ts";

const T0 = new Date("2026-01-15T12:00:00.000Z");
const limits = (perPlayerPerMinute: number, perProjectPerMinute: number) => ({ perPlayerPerMinute, perProjectPerMinute });

function setup() {
  const clock = new ManualClock(T0);
  return { clock, rl: new RateLimiter(clock) };
}

function rejected(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected a 429");
}

function hitN(rl: RateLimiter, n: number, project: string, player: string, l = limits(60, 200)) {
  for (let i = 0; i < n; i++) rl.hit(project, player, l);
}

test("per-player limit hits at N+1 with the true wait; 429 carries body field and header", () => {
  const { clock, rl } = setup();
  rl.hit("p1", "alice", limits(60, 200)); // t0
  clock.advance(30_000);
  hitN(rl, 59, "p1", "alice"); // the 60th hit at t0+30s
  const e = rejected(() => rl.hit("p1", "alice", limits(60, 200)));
  expect(e.status).toBe(429);
  expect(e.toBody()).toEqual({ error: "Rate limit exceeded", retryAfter: 30 });
  expect(e.headers).toEqual({ "Retry-After": "30" });
  // Rounded up, never 0: 29.5 s left → 30; 1 ms left → 1.
  clock.advance(500);
  expect(rejected(() => rl.hit("p1", "alice", limits(60, 200))).extra.retryAfter).toBe(30);
  clock.set(new Date(T0.getTime() + 59_999));
  expect(rejected(() => rl.hit("p1", "alice", limits(60, 200))).extra.retryAfter).toBe(1);
  // At t0+60s the first hit has left the window: exactly one slot.
  clock.set(new Date(T0.getTime() + 60_000));
  rl.hit("p1", "alice", limits(60, 200));
  expect(rejected(() => rl.hit("p1", "alice", limits(60, 200))).extra.retryAfter).toBe(30);
});

test("another player, and the same player id in another project, are unaffected", () => {
  const { rl } = setup();
  hitN(rl, 3, "p1", "alice", limits(3, 200));
  expect(() => rl.hit("p1", "alice", limits(3, 200))).toThrow(ApiError);
  expect(() => rl.hit("p1", "bob", limits(3, 200))).not.toThrow();
  expect(() => rl.hit("p2", "alice", limits(3, 200))).not.toThrow();
});

test("per-project limit counts every player", () => {
  const { clock, rl } = setup();
  for (let i = 0; i < 5; i++) {
    rl.hit("p1", `player${i}`, limits(60, 5));
    clock.advance(1_000);
  }
  const e = rejected(() => rl.hit("p1", "newcomer", limits(60, 5)));
  expect(e.extra.retryAfter).toBe(55); // the first hit (t0) leaves at t0+60s; now is t0+5s
  expect(() => rl.hit("p2", "newcomer", limits(60, 5))).not.toThrow();
});

test("retryAfter is the longer wait when both windows are full", () => {
  const { clock, rl } = setup();
  rl.hit("p1", "alice", limits(2, 3)); // t0
  clock.advance(10_000);
  rl.hit("p1", "alice", limits(2, 3)); // t0+10
  rl.hit("p1", "bob", limits(2, 3)); // t0+10: project full (3), alice full (2)
  // alice: her oldest (t0) frees at t0+60 → 50 s; project: oldest (t0) also → 50 s.
  expect(rejected(() => rl.hit("p1", "alice", limits(2, 3))).extra.retryAfter).toBe(50);
  // With a per-player limit of 1 alice must wait for her newer hit: t0+10+60 → 60 s.
  expect(rejected(() => rl.hit("p1", "alice", limits(1, 3))).extra.retryAfter).toBe(60);
});

test("a rejected request does not consume", () => {
  const { clock, rl } = setup();
  hitN(rl, 2, "p1", "alice", limits(2, 3));
  for (let i = 0; i < 50; i++) expect(() => rl.hit("p1", "alice", limits(2, 3))).toThrow(ApiError);
  // The project window holds alice's 2 recorded hits only, so one more player fits...
  rl.hit("p1", "bob", limits(2, 3));
  // ...and then it is full.
  expect(rejected(() => rl.hit("p1", "bob", limits(2, 3))).extra.retryAfter).toBe(60);
  clock.advance(60_000);
  hitN(rl, 2, "p1", "alice", limits(2, 3)); // both of alice's slots are free again: rejections left no trace
});

test("the window slides: hits leave one by one, 60 s after each", () => {
  const { clock, rl } = setup();
  for (let i = 0; i < 3; i++) {
    rl.hit("p1", "alice", limits(3, 100));
    clock.advance(20_000);
  } // hits at 0, 20, 40; now 60 → the first has expired
  rl.hit("p1", "alice", limits(3, 100));
  expect(rejected(() => rl.hit("p1", "alice", limits(3, 100))).extra.retryAfter).toBe(20);
  clock.advance(20_000); // 80: the hit at 20 expires
  rl.hit("p1", "alice", limits(3, 100));
  clock.advance(5_000);
  expect(rejected(() => rl.hit("p1", "alice", limits(3, 100))).extra.retryAfter).toBe(15);
});

test("limits are taken per call: a lowered limit applies to the next request", () => {
  const { rl } = setup();
  hitN(rl, 10, "p1", "alice");
  const e = rejected(() => rl.hit("p1", "alice", limits(5, 200)));
  expect(e.extra.retryAfter).toBe(60);
  expect(() => rl.hit("p1", "alice", limits(11, 200))).not.toThrow();
});

test("undo forgets a recorded hit", () => {
  const { clock, rl } = setup();
  rl.hit("p1", "alice", limits(2, 100));
  clock.advance(1_000);
  const at = rl.hit("p1", "alice", limits(2, 100));
  expect(() => rl.hit("p1", "alice", limits(2, 100))).toThrow(ApiError);
  rl.undo("p1", "alice", at);
  expect(() => rl.hit("p1", "alice", limits(2, 100))).not.toThrow();
  rl.undo("p1", "alice");
  rl.undo("p1", "nobody"); // no-op
  expect(() => rl.hit("p1", "alice", limits(2, 100))).not.toThrow();
});

test("memory is bounded: prune drops expired hits and empty keys", () => {
  const { clock, rl } = setup();
  for (let i = 0; i < 1_000; i++) rl.hit(`p${i % 10}`, `player${i}`, limits(60, 1_000));
  expect(rl.trackedKeys).toBe(1_010);
  clock.advance(30_000);
  rl.prune();
  expect(rl.trackedKeys).toBe(1_010); // still inside the window
  rl.hit("p0", "player0", limits(60, 1_000));
  clock.advance(30_000);
  rl.prune();
  expect(rl.trackedKeys).toBe(2); // only p0/player0 and p0 hold a live hit
  clock.advance(30_000);
  rl.prune();
  expect(rl.trackedKeys).toBe(0);
});

test("hit sweeps by itself once a window even if nobody calls prune", () => {
  const { clock, rl } = setup();
  for (let i = 0; i < 100; i++) rl.hit("p1", `player${i}`, limits(60, 1_000));
  clock.advance(61_000);
  rl.hit("p1", "late", limits(60, 1_000));
  expect(rl.trackedKeys).toBe(2);
});

test("a big window stays exact (100 000 / min)", () => {
  const { clock, rl } = setup();
  const big = limits(100_000, 100_000);
  for (let i = 0; i < 100_000; i++) {
    rl.hit("p1", "bot", big);
    if (i % 1000 === 999) clock.advance(500); // 1000 hits every 0.5 s
  }
  const e = rejected(() => rl.hit("p1", "bot", big));
  expect(e.extra.retryAfter).toBe(10); // 100 batches → now t0+50 s; the first batch (t0) frees its slots at t0+60 s
}, 30_000);
