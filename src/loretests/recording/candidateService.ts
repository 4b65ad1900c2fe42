import type { ServiceContext } from "../../core/context.ts";
import { notFound } from "../../core/errors.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { mindProfileRow } from "../../lore/minds/mindStore.ts";
import { turnAsTestCase } from "../caseFromConversation.ts";
import { deleteCandidate, getCandidate, listCandidates, type CandidateRow } from "./candidateStore.ts";
import type { RecordedTurn } from "./recordTurn.ts";

export interface CandidateView {
  id: string;
  mindId: string;
  /** the mind's name now (null: renamed away is impossible, deleted minds take their candidates with them) */
  character: string | null;
  /** a salted hash: which candidates came from one player, never who */
  playerHash: string;
  /** still recording: the session goes on */
  open: boolean;
  turnCount: number;
  turns: RecordedTurn[];
  createdAt: string;
  updatedAt: string;
}

const LIST_LIMIT = 200;

function view(ctx: ServiceContext, projectId: string, r: CandidateRow): CandidateView {
  const mind = mindProfileRow(ctx.db, projectId, r.mindId);
  return {
    id: r.id,
    mindId: r.mindId,
    character: mind?.entity_name ?? null,
    playerHash: r.playerHash,
    open: r.open,
    turnCount: r.turnCount,
    turns: parseJsonColumn<RecordedTurn[]>(r.turns, []),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** The project's candidates, newest first (at most 200). */
export function listCandidateViews(ctx: ServiceContext, projectId: string): { candidates: CandidateView[] } {
  return { candidates: listCandidates(ctx.db, projectId, LIST_LIMIT).map((r) => view(ctx, projectId, r)) };
}

function requireCandidate(ctx: ServiceContext, projectId: string, id: string): CandidateRow {
  const r = getCandidate(ctx.db, projectId, id);
  if (!r) throw notFound("Candidate");
  return r;
}

export function candidateView(ctx: ServiceContext, projectId: string, id: string): CandidateView {
  return view(ctx, projectId, requireCandidate(ctx, projectId, id));
}

/**
 * Accepting a candidate turns it into a lore test case (one item of a suite's `tests:`, YAML) with suggested
 * expectations on its last turn — the documents whose lore reached the prompt and the names worth keeping —
 * exactly as "save this playground turn as a test" does, and removes it from the review queue.
 */
export function acceptCandidate(ctx: ServiceContext, projectId: string, id: string): { id: string; accepted: true; caseYaml: string } {
  return writeTx(ctx.db, () => {
    const c = view(ctx, projectId, requireCandidate(ctx, projectId, id));
    const caseYaml = turnAsTestCase(
      { id: c.mindId, entityName: c.character ?? c.mindId },
      c.turns.map((t) => ({ player: t.player, reply: t.reply, lore: t.lore, keep: t.keep })),
    );
    deleteCandidate(ctx.db, projectId, id);
    return { id, accepted: true, caseYaml };
  });
}

/** Rejecting deletes the candidate: nothing of the conversation is kept. */
export function rejectCandidate(ctx: ServiceContext, projectId: string, id: string): { id: string; deleted: true } {
  if (!deleteCandidate(ctx.db, projectId, id)) throw notFound("Candidate");
  return { id, deleted: true };
}
