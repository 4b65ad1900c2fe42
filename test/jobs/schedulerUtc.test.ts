import { afterAll, expect, test } from "bun:test";
import { Scheduler } from "../../src/jobs/Scheduler.ts";
import { silentLogger } from "../../src/ops/logger.ts";

// Job schedules are in UTC whatever the machine's own timezone (here one 13 h 45 min ahead, with daylight saving).
const tz = process.env.TZ;
process.env.TZ = "Pacific/Chatham";
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

test("a job's next run is worked out in UTC", async () => {
  const s = new Scheduler(silentLogger);
  const never = async () => undefined;
  s.register({ name: "monthly", schedule: "5 0 0 1 * *", run: never });
  s.register({ name: "ten-minutes", schedule: "0 */10 * * * *", run: never });
  s.register({ name: "daily-at-three", schedule: "0 0 3 * * *", run: never });
  const before = Date.now();
  s.start();
  try {
    const next = new Map(s.list().map((j) => [j.name, j.nextRunAt]));
    const now = new Date(before);
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 5));
    const firstThisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 0, 0, 5));
    expect(next.get("monthly")).toBe((firstThisMonth.getTime() > before ? firstThisMonth : month).toISOString());
    const tenMinutes = 10 * 60_000;
    expect(next.get("ten-minutes")).toBe(new Date((Math.floor(before / tenMinutes) + 1) * tenMinutes).toISOString());
    const threeToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 3);
    expect(next.get("daily-at-three")).toBe(new Date(threeToday > before ? threeToday : threeToday + 86_400_000).toISOString());
  } finally {
    await s.stop();
  }
});
