import type { ServiceContext } from "../core/context.ts";
import { TurnConditions } from "../conditions/compileCondition.ts";
import type { Scope } from "../conditions/scope.ts";
import type { StateValue } from "../state/stateKeys.ts";
import { turnScope } from "../state/turnScope.ts";
import { loreGate, projectConditions, type LoreGate } from "./loreGate.ts";

/** What a turn's conditions need of the conversation: its turns and the notes kept with them. */
interface HistoryTurn {
  role: "user" | "assistant";
  notes?: { lore?: { documentId: string }[]; timed?: string[] };
}

export interface TurnGate {
  /** the scope the turn's conditions read (the preview shows it) */
  scope: Scope;
  /** the mind's tags open this turn: always-known ones and those whose condition holds */
  openTags: string[];
  /** every tag the mind has configured, open or not (activeKnowledgeTags warns only about others) */
  configuredTags: string[];
  /** each conditional knowledge entry and whether it holds */
  knowledge: { tag: string; when: string; open: boolean }[];
  lore: LoreGate;
}

/**
 * The condition part of a turn's gather step (docs/internals/turn-pipeline.md): the scope, built
 * once; the mind's conditional knowledge evaluated against it; and the lore gate of the project's
 * documents with conditions or timers. Every distinct condition is evaluated once per turn.
 */
export function gatherConditions(
  ctx: ServiceContext,
  projectId: string,
  q: {
    mind: { knowledgeTags: string[]; knowledge: { tag: string; when: string }[] };
    playerId: string;
    overrides?: Record<string, StateValue>;
    history: readonly HistoryTurn[];
  },
): TurnGate {
  const turn = q.history.filter((m) => m.role === "user").length;
  const { scope } = turnScope(ctx, projectId, { playerId: q.playerId, overrides: q.overrides, turn });
  const conditions = new TurnConditions(scope, projectConditions(ctx.db, projectId));
  const knowledge = q.mind.knowledge.map((k) => ({ ...k, open: conditions.holds(k.when) }));
  const open = new Set(q.mind.knowledgeTags);
  for (const k of knowledge) if (k.open) open.add(k.tag);
  const configuredTags = [...new Set([...q.mind.knowledgeTags, ...q.mind.knowledge.map((k) => k.tag)])];
  return {
    scope,
    openTags: configuredTags.filter((t) => open.has(t)),
    configuredTags,
    knowledge,
    lore: loreGate(ctx, projectId, { conditions, turn, arrivals: arrivals(q.history, turn) }),
  };
}

/** For each document, how many turns back its latest note came in (the turn's `timed` record, or its lore notes). */
export function arrivals(history: readonly HistoryTurn[], turn: number): Map<string, number> {
  const out = new Map<string, number>();
  let j = 0;
  for (const m of history) {
    if (m.role !== "user") continue;
    const ago = turn - j++;
    for (const id of [...(m.notes?.timed ?? []), ...(m.notes?.lore?.map((l) => l.documentId) ?? [])]) out.set(id, ago);
  }
  return out;
}

/** How many turns back each user turn of the conversation was (index of the message → turns ago); assistant messages get -1. */
export function turnsAgo(history: readonly HistoryTurn[]): number[] {
  const turn = history.filter((m) => m.role === "user").length;
  let j = 0;
  return history.map((m) => (m.role === "user" ? turn - j++ : -1));
}
