import type { InteractDeps, ServiceContext } from "../core/context.ts";
import { nowIso } from "../core/context.ts";
import { readState } from "../state/stateService.ts";
import { finishRun, insertResult, setRunIdentity } from "./loreTestStore.ts";
import type { ResolvedCase } from "./resolveCases.ts";
import { runCaseOnce, type RunRecord } from "./runCase.ts";
import { loreRevision, modelIdentity, promptVersion } from "./runIdentity.ts";

/** A case's verdict over its runs. */
export interface CaseOutcome {
  index: number;
  source: string;
  name: string;
  mindId: string;
  mindName: string;
  passed: boolean;
  /** share of runs that passed */
  passRate: number;
  requiredRate: number;
  runs: RunRecord[];
}

export interface SuiteSummary {
  status: "PASSED" | "FAILED";
  cases: CaseOutcome[];
  passed: number;
  failed: number;
  wallMs: number;
  /** time spent generating replies alone (the rest is preparing turns, seeding, checking and storing) */
  generateMs: number;
}

export interface SuiteOptions {
  /** runs of every case, instead of each case's own `runs` */
  runs?: number;
  /** after each case: its outcome and how far the suite is */
  onCase?: (outcome: CaseOutcome, done: number, total: number) => void;
  /** the server stopping: the suite ends before its next case run, as ERROR */
  signal?: AbortSignal;
}

/**
 * Runs a resolved suite on a scratch copy (`scratch`: its interact deps) and stores each case's outcome
 * in the run `runId` of the real database (`store`) as it finishes, so progress can be read while it runs.
 * Cases of one mind run one after another in the suite's order: they share the mind's warm prompt prefix.
 */
export async function runSuite(store: ServiceContext, scratch: InteractDeps, run: { id: string; projectId: string }, cases: ResolvedCase[], opts: SuiteOptions = {}): Promise<SuiteSummary> {
  const t0 = performance.now();
  setRunIdentity(store.db, run.id, { model: modelIdentity(scratch), loreRevision: loreRevision(scratch, run.projectId), promptVersion: null });
  const baseWorld = readState(scratch, run.projectId, null);
  const outcomes: CaseOutcome[] = [];
  const systems: string[] = [];
  let generateMs = 0;
  try {
    for (const [index, c] of cases.entries()) {
      const n = opts.runs ?? c.case.runs ?? 1;
      const records: RunRecord[] = [];
      for (let r = 0; r < n; r++) {
        if (opts.signal?.aborted) throw new Error("interrupted: the server stopped during the run");
        const rec = await runCaseOnce(scratch, run.projectId, c, { runId: run.id, caseIndex: index, run: r, baseWorld });
        records.push(rec);
        if (rec.system) systems.push(rec.system);
        generateMs += rec.turns.reduce((s, t) => s + t.timing.generateMs, 0);
      }
      const rate = records.filter((x) => x.passed).length / n;
      const required = c.case.passRate ?? 1;
      const outcome: CaseOutcome = {
        index,
        source: c.source,
        name: c.case.name,
        mindId: c.mindId,
        mindName: c.mindName,
        // a float share against a written one: 2/3 passes "passRate: 0.66" and "0.667" alike
        passed: rate + 1e-9 >= required,
        passRate: rate,
        requiredRate: required,
        runs: records,
      };
      insertResult(store.db, run.id, {
        caseIndex: index,
        source: c.source,
        name: c.case.name,
        mindId: c.mindId,
        passed: outcome.passed,
        passRate: rate,
        requiredRate: required,
        runs: JSON.stringify(records),
      });
      outcomes.push(outcome);
      opts.onCase?.(outcome, index + 1, cases.length);
    }
  } catch (e) {
    finishRun(store.db, run.id, { status: "ERROR", at: nowIso(store), error: e instanceof Error ? e.message : String(e), wallMs: performance.now() - t0, generateMs });
    throw e;
  }
  const passed = outcomes.filter((o) => o.passed).length;
  const status = passed === outcomes.length ? "PASSED" : "FAILED";
  const wallMs = performance.now() - t0;
  finishRun(store.db, run.id, { status, at: nowIso(store), wallMs, generateMs, promptVersion: promptVersion(systems) });
  return { status, cases: outcomes, passed, failed: outcomes.length - passed, wallMs, generateMs };
}
