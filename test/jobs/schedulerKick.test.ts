import { describe, expect, test } from "bun:test";
import { Scheduler } from "../../src/jobs/Scheduler.ts";
import { silentLogger } from "../../src/ops/logger.ts";

/** A job whose ticks wait for the test to let them finish: what a kick does is seen tick by tick. */
function gatedJob() {
  const ticks: { release: () => void }[] = [];
  let started: () => void = () => {};
  const def = {
    name: "gated",
    schedule: "0 0 1 1 *", // once a year: only kicks and triggers run it here
    run: () => new Promise<void>((resolve) => {
      ticks.push({ release: resolve });
      started();
    }),
  };
  const nextStart = () => new Promise<void>((r) => (started = r));
  return { def, ticks, nextStart };
}

const turn = () => new Promise((r) => setTimeout(r, 0));

describe("Scheduler.kick", () => {
  test("does nothing before start() (tests run jobs by hand)", async () => {
    const s = new Scheduler(silentLogger);
    const j = gatedJob();
    s.register(j.def);
    s.kick("gated");
    await turn();
    await turn();
    expect(j.ticks).toHaveLength(0);
    await s.stop();
  });

  test("runs the job outside the caller's turn, once however many kicks", async () => {
    const s = new Scheduler(silentLogger);
    const j = gatedJob();
    s.register(j.def);
    s.start();
    const started = j.nextStart();
    s.kick("gated");
    s.kick("gated");
    expect(j.ticks).toHaveLength(0); // not in the caller's turn
    await started;
    expect(j.ticks).toHaveLength(1);
    j.ticks[0].release();
    await turn();
    await turn();
    expect(j.ticks).toHaveLength(1);
    expect(s.list()[0]).toMatchObject({ running: false, runs: 1 });
    await s.stop();
  });

  test("a kick while a tick runs runs the job once more after it (the tick may have looked for work already)", async () => {
    const s = new Scheduler(silentLogger);
    const j = gatedJob();
    s.register(j.def);
    s.start();
    let started = j.nextStart();
    s.kick("gated");
    await started;
    s.kick("gated");
    s.kick("gated");
    await turn();
    expect(j.ticks).toHaveLength(1); // never two ticks at once
    started = j.nextStart();
    j.ticks[0].release();
    await started;
    expect(j.ticks).toHaveLength(2);
    j.ticks[1].release();
    await turn();
    await turn();
    expect(j.ticks).toHaveLength(2);
    expect(s.list()[0]).toMatchObject({ running: false, runs: 2 });
    await s.stop();
  });

  test("a stopped scheduler ignores kicks", async () => {
    const s = new Scheduler(silentLogger);
    const j = gatedJob();
    s.register(j.def);
    s.start();
    await s.stop();
    s.kick("gated");
    await turn();
    expect(j.ticks).toHaveLength(0);
  });
});
