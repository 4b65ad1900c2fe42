import type { InteractDeps } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { interact, type InteractOptions } from "../npc/interactService.ts";
import type { PreparedTurn } from "../npc/prepareTurn.ts";
import { validateInteract } from "../npc/validateInteract.ts";
import { turnGuard } from "../npc/replies/turnGuard.ts";
import { readState, writeState, type StateMap } from "../state/stateService.ts";
import { storeMemories } from "../npc/memory/storeMemories.ts";
import { setTrust } from "../behaviour/trust.ts";
import type { TurnBehaviour } from "../behaviour/behaviourPrompt.ts";
import { checkTurn, type CheckResult, type TraceNote } from "./expectations.ts";
import type { ResolvedCase } from "./resolveCases.ts";

/** One turn of one run, as stored: the reply, what reached the prompt, and each expectation's verdict. */
export interface TurnRecord {
  say: string;
  reply: string;
  passed: boolean;
  checks: CheckResult[];
  trace: { lore: TraceNote[]; memories: string[]; visibleTags: string[]; warnings: string[] };
  behaviour: TurnBehaviour | null;
  timing: { firstTokenMs: number; generateMs: number; promptTokens: number; evaluatedPromptTokens: number; completionTokens: number };
}

export interface RunRecord {
  run: number;
  seed: number | null;
  greedy: boolean;
  passed: boolean;
  turns: TurnRecord[];
  /** the turn could not run (e.g. 503 without a model): the run fails with this */
  error?: string;
  /** the first turn's system message (the run's prompt version is a hash of these) */
  system?: string;
}

/** The player id of one run of one case: unique per run, so every run starts a fresh conversation. */
export function testPlayerId(runId: string, caseIndex: number, run: number): string {
  return `lore-test~${runId}~${caseIndex}~${run}`;
}

/**
 * Runs one case once through the production interact path on the scratch copy: seeds the world and
 * player state (the world is put back to the copy's own state first, so cases never see each other's),
 * the memories and the trust, then plays the turns in order.
 */
export async function runCaseOnce(
  deps: InteractDeps,
  projectId: string,
  c: ResolvedCase,
  at: { runId: string; caseIndex: number; run: number; baseWorld: StateMap },
): Promise<RunRecord> {
  const spec = c.case;
  const playerId = testPlayerId(at.runId, at.caseIndex, at.run);
  const greedy = spec.greedy === true;
  const seed = spec.seed != null ? spec.seed + at.run : null;
  const record: RunRecord = { run: at.run, seed, greedy, passed: false, turns: [] };
  try {
    const world = { ...at.baseWorld, ...(spec.state?.world ?? {}) };
    const current = readState(deps, projectId, null);
    writeState(deps, projectId, null, { set: world, unset: Object.keys(current).filter((k) => !(k in world)) });
    if (spec.state?.player && Object.keys(spec.state.player).length) writeState(deps, projectId, playerId, { set: spec.state.player });
    if (spec.trust != null) setTrust(deps, projectId, c.mindId, playerId, { value: spec.trust });
    if (spec.memories?.length) {
      await storeMemories(deps, { projectId, mindId: c.mindId, playerId, drafts: spec.memories.map((text) => ({ text, importance: 7, topics: [] })) });
    }
    const history = (spec.history ?? []).map((h) => ({ role: h.role === "player" ? "user" : "assistant", content: h.text }));
    for (const [i, turn] of spec.turns.entries()) {
      const body: Record<string, unknown> = { text: turn.say, entityMindId: c.mindId, playerId };
      if (i === 0 && history.length) body.conversationHistory = history;
      if (spec.memories?.length) body.memory = { retrieve: true };
      if (turn.state) body.state = turn.state;
      if (turn.availableActions) body.availableActions = turn.availableActions;
      const req = validateInteract(body);
      let prepared: PreparedTurn | null = null;
      const timing: NonNullable<InteractOptions["timing"]> = { generateMs: 0 };
      const res = await interact(deps, { keyId: "lore-tests", projectId, type: "server" }, req, {
        onPrepared: (p) => (prepared = p),
        sampling: greedy ? { temperature: 0 } : seed !== null ? { seed } : undefined,
        timing,
      });
      const p = prepared as PreparedTurn | null;
      if (!p) throw new Error("the turn was not prepared");
      if (i === 0) record.system = p.messages[0]?.content;
      const lore = traceOf(p);
      const behaviour = res.metadata.behaviour ?? null;
      const checks = checkTurn(turn.expect, c.turns[i], {
        reply: res.response,
        prompt: p.messages,
        lore,
        behaviour,
        guard: turnGuard(p, turn.say).context,
        timeToFirstTokenMs: timing.timeToFirstTokenMs ?? 0,
      });
      record.turns.push({
        say: turn.say,
        reply: res.response,
        passed: checks.every((x) => x.pass),
        checks,
        trace: {
          lore,
          memories: [...p.history.flatMap((m) => m.notes?.memories ?? []), ...p.newMemories],
          visibleTags: p.visible,
          warnings: res.metadata.warnings ?? [],
        },
        behaviour,
        timing: {
          firstTokenMs: timing.timeToFirstTokenMs ?? 0,
          generateMs: timing.generateMs ?? 0,
          promptTokens: timing.promptTokens ?? 0,
          evaluatedPromptTokens: timing.evaluatedPromptTokens ?? 0,
          completionTokens: timing.completionTokens ?? 0,
        },
      });
    }
    record.passed = record.turns.every((t) => t.passed);
  } catch (e) {
    record.error = e instanceof ApiError ? `${e.status} ${e.error}${detailsOf(e)}` : e instanceof Error ? e.message : String(e);
    record.passed = false;
  }
  return record;
}

/** The chunks that reached the prompt: this turn's retrieval, notes kept from earlier turns, the shared lore. */
export function traceOf(p: Pick<PreparedTurn, "newLore" | "history" | "sharedLore">): TraceNote[] {
  const note = (turn: TraceNote["turn"]) => (l: { documentId: string; documentName: string; chunkIndex: number }) => ({ documentId: l.documentId, documentName: l.documentName, chunkIndex: l.chunkIndex, turn });
  return [...p.newLore.map(note("this")), ...p.history.flatMap((m) => m.notes?.lore ?? []).map(note("earlier")), ...p.sharedLore.map(note("shared"))];
}

function detailsOf(e: ApiError): string {
  const d = e.extra.details as string[] | undefined;
  return d?.length ? `: ${d.join("; ")}` : "";
}
