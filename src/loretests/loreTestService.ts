import type { InteractDeps, ServiceContext } from "../core/context.ts";
import { nowIso } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { claimQueuedRun, finishRun, getRun, insertRun, listRuns, recentSuites, runResults, type RunRow } from "./loreTestStore.ts";
import { parseSuites, type SuiteText } from "./loadSuites.ts";
import { resolveCases, type ResolvedCase } from "./resolveCases.ts";
import { runSuite, type SuiteSummary } from "./runSuite.ts";
import { scratchFromLive } from "./scratchProject.ts";
import type { RunRecord } from "./runCase.ts";

/** Parses and resolves suite files against a project: 400 with every problem, or the cases to run. */
export function prepareSuite(ctx: ServiceContext, projectId: string, files: SuiteText[]): ResolvedCase[] {
  return resolveCases(ctx, projectId, parseSuites(files));
}

/** What validating a suite answers: its cases as they will run. */
export function describeSuite(cases: ResolvedCase[]) {
  return {
    valid: true as const,
    cases: cases.map((c) => ({ source: c.source, name: c.case.name, mind: c.mindName, mindId: c.mindId, turns: c.case.turns.length, runs: c.case.runs ?? 1 })),
  };
}

/**
 * The suite files this project has been tested with: each file (by name) as its latest run sent it, with that
 * run's id and time, so the Studio and scripts can run them again. Files live with the lore, not on the server.
 */
export function listSuites(ctx: ServiceContext, projectId: string) {
  const seen = new Map<string, { file: string; text: string; lastRunId: string; lastRunAt: string }>();
  for (const r of recentSuites(ctx.db, projectId, 200)) {
    for (const f of JSON.parse(r.suite) as SuiteText[]) if (!seen.has(f.file)) seen.set(f.file, { file: f.file, text: f.text, lastRunId: r.id, lastRunAt: r.createdAt });
  }
  return { suites: [...seen.values()] };
}

/** A queued run of the suite (the run job takes it); the suite is checked first, so a bad file is a 400 now. */
export function queueRun(ctx: ServiceContext, projectId: string, files: SuiteText[], opts: { runs?: number; label?: string | null } = {}): RunRow {
  const cases = prepareSuite(ctx, projectId, files);
  const id = newId("ltr");
  insertRun(ctx.db, { id, projectId, label: opts.label ?? null, createdAt: nowIso(ctx), suite: JSON.stringify(files), options: JSON.stringify({ runs: opts.runs ?? null }), totalCases: cases.length });
  return getRun(ctx.db, projectId, id)!;
}

/**
 * The run job's step: takes the oldest queued run, runs it on a scratch copy of its project with the
 * server's generation backend, and stores the results. The copy is deleted after, and the run's
 * conversations are dropped from the engine's sequences and KV snapshots (the real project's never are).
 */
export async function runNextQueued(deps: InteractDeps, signal?: AbortSignal): Promise<SuiteSummary | null> {
  const row = claimQueuedRun(deps.db, nowIso(deps));
  if (!row) return null;
  const t0 = performance.now();
  const fail = (e: unknown) => finishRun(deps.db, row.id, { status: "ERROR", at: nowIso(deps), error: e instanceof ApiError ? `${e.error}: ${((e.extra.details as string[]) ?? []).join("; ")}` : e instanceof Error ? e.message : String(e), wallMs: performance.now() - t0 });
  let scratch;
  try {
    scratch = await scratchFromLive(deps, row.projectId);
  } catch (e) {
    fail(e);
    return null;
  }
  try {
    const cases = prepareSuite(scratch.deps, row.projectId, JSON.parse(row.suite) as SuiteText[]);
    const options = JSON.parse(row.options) as { runs: number | null };
    return await runSuite(deps, scratch.deps, { id: row.id, projectId: row.projectId }, cases, { runs: options.runs ?? undefined, signal });
  } catch (e) {
    if (getRun(deps.db, row.projectId, row.id)?.status === "RUNNING") fail(e);
    return null;
  } finally {
    await scratch.close();
    await forgetRunConversations(deps, row.id);
  }
}

/**
 * Drops a run's test conversations from the local engine (its sequences and its KV snapshot files). No wait for
 * the engine's background work: a save of a forgotten conversation still running is deleted when it ends.
 */
export async function forgetRunConversations(deps: Pick<InteractDeps, "llm">, runId: string): Promise<void> {
  deps.llm?.forgetConversations((key) => key.includes(`:lore-test~${runId}~`));
}

/** A run as the API shows it: its identity, state and progress. */
export function runView(r: RunRow) {
  return {
    id: r.id,
    projectId: r.projectId,
    status: r.status,
    label: r.label,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    model: r.model,
    loreRevision: r.loreRevision,
    promptVersion: r.promptVersion,
    progress: { total: r.totalCases, done: r.doneCases, passed: r.passedCases, failed: r.doneCases - r.passedCases },
    error: r.error,
    wallMs: r.wallMs,
    generateMs: r.generateMs,
  };
}

export function requireRun(ctx: ServiceContext, projectId: string, runId: string): RunRow {
  const r = getRun(ctx.db, projectId, runId);
  if (!r) throw new ApiError(404, "Lore test run not found");
  return r;
}

export function listRunViews(ctx: ServiceContext, projectId: string, limit = 50) {
  return { runs: listRuns(ctx.db, projectId, limit).map(runView) };
}

export function runWithResults(ctx: ServiceContext, projectId: string, runId: string) {
  const r = requireRun(ctx, projectId, runId);
  return { run: runView(r), cases: runResults(ctx.db, r.id).map((c) => ({ ...c, runs: JSON.parse(c.runs) as RunRecord[] })) };
}

/**
 * Two runs of a project side by side: every case (matched by name and mind) whose verdict changed, with
 * both runs' replies and traces; the cases only one run has; how many kept their verdict.
 */
export function compareRuns(ctx: ServiceContext, projectId: string, runA: string, runB: string) {
  const a = runWithResults(ctx, projectId, runA);
  const b = runWithResults(ctx, projectId, runB);
  const key = (c: { name: string; mindId: string }) => `${c.mindId}\u0000${c.name}`;
  const inB = new Map(b.cases.map((c) => [key(c), c]));
  const inA = new Set(a.cases.map(key));
  const changed = [];
  let same = 0;
  for (const ca of a.cases) {
    const cb = inB.get(key(ca));
    if (!cb) continue;
    if (ca.passed === cb.passed) {
      same++;
      continue;
    }
    const side = (c: typeof ca) => ({ passed: c.passed, passRate: c.passRate, requiredRate: c.requiredRate, runs: c.runs });
    changed.push({ name: ca.name, mindId: ca.mindId, direction: cb.passed ? "fixed" : "broke", a: side(ca), b: side(cb) });
  }
  return {
    a: a.run,
    b: b.run,
    changed,
    unchanged: same,
    onlyInA: a.cases.filter((c) => !inB.has(key(c))).map((c) => c.name),
    onlyInB: b.cases.filter((c) => !inA.has(key(c))).map((c) => c.name),
  };
}
