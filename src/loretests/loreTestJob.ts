import type { JobDefinition } from "../jobs/Scheduler.ts";
import type { InteractDeps } from "../core/context.ts";
import { nowIso } from "../core/context.ts";
import { failInterruptedRuns } from "./loreTestStore.ts";
import { runNextQueued } from "./loreTestService.ts";

export const LORE_TEST_JOB = "lore-tests";

/**
 * Runs queued lore test runs one at a time (a suite shares the generation backend with live players; two
 * suites at once would only slow both). Kicked when a run is queued; the schedule is the fallback. At start,
 * a run an earlier process left RUNNING is marked ERROR: nothing will finish it.
 */
export function loreTestJob(deps: InteractDeps): JobDefinition {
  let started = false;
  return {
    name: LORE_TEST_JOB,
    schedule: "*/10 * * * * *",
    runOnStart: true,
    async run(signal) {
      if (!started) {
        started = true;
        failInterruptedRuns(deps.db, nowIso(deps));
      }
      let ran = 0;
      while (!signal.aborted && (await runNextQueued(deps, signal))) ran++;
      return { ran };
    },
  };
}
