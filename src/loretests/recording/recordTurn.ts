import { nowIso, type ServiceContext } from "../../core/context.ts";
import { newId } from "../../core/ids.ts";
import { parseJsonColumn } from "../../core/json.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { wordsToKeep } from "../caseFromConversation.ts";
import { closeCandidates, countCandidates, insertCandidate, openCandidate, recordingRow, updateCandidateTurns } from "./candidateStore.ts";
import { playerHash } from "./playerHash.ts";

/** A candidate holds at most this many turns of a session: a test case is a few turns, not a whole evening. */
export const MAX_RECORDED_TURNS = 8;
/** Each line is cut to this many characters. */
export const MAX_LINE_CHARS = 1000;
/** Documents kept per turn (the trace's notes, one per document). */
export const MAX_LORE_PER_TURN = 12;
/** A project holds at most this many candidates: sampling stops until writers review some. */
export const MAX_CANDIDATES = 500;

export interface RecordedTurn {
  player: string;
  reply: string;
  /** the documents whose lore reached the prompt (the turn's trace) */
  lore: { documentId: string; documentName: string }[];
  /** names the reply used that the prompt's lore holds too: the suggested `mentions` */
  keep: string[];
}

export interface TurnToRecord {
  projectId: string;
  mindId: string;
  playerId: string;
  player: string;
  reply: string;
  /** the first turn of a session (no history before it): where a session is sampled, or not */
  sessionStart: boolean;
  lore: { documentId: string; documentName: string }[];
  /** the prompt's text, to find the words worth keeping (never stored) */
  promptText: string;
}

const cut = (s: string) => (s.length > MAX_LINE_CHARS ? `${s.slice(0, MAX_LINE_CHARS - 1)}…` : s);

/**
 * Records one served turn into the candidate of its session, when the project consents. A session is sampled
 * once, at its first turn (`random() < recordSampleRate`); its later turns join the same candidate up to
 * MAX_RECORDED_TURNS. Only the public interact route calls this: playground, scenes, events and lore-test runs
 * (a scratch copy) never record. Returns whether the turn was recorded.
 */
export function recordTurn(ctx: ServiceContext, t: TurnToRecord, random: () => number = Math.random): boolean {
  const rec = recordingRow(ctx.db, t.projectId);
  if (!rec?.enabled || rec.sampleRate <= 0) return false;
  const hash = playerHash(rec.salt, t.playerId);
  const docs = new Map<string, RecordedTurn["lore"][number]>();
  for (const l of t.lore) if (!docs.has(l.documentId) && docs.size < MAX_LORE_PER_TURN) docs.set(l.documentId, { documentId: l.documentId, documentName: l.documentName });
  const turn: RecordedTurn = { player: cut(t.player), reply: cut(t.reply), lore: [...docs.values()], keep: wordsToKeep(t.reply, t.promptText) };
  const at = nowIso(ctx);
  return writeTx(ctx.db, () => {
    if (t.sessionStart) {
      closeCandidates(ctx.db, t.projectId, t.mindId, hash);
      if (random() >= rec.sampleRate || countCandidates(ctx.db, t.projectId) >= MAX_CANDIDATES) return false;
      insertCandidate(ctx.db, { id: newId("cand"), projectId: t.projectId, mindId: t.mindId, playerHash: hash, turns: JSON.stringify([turn]), turnCount: 1, createdAt: at, updatedAt: at });
      return true;
    }
    const open = openCandidate(ctx.db, t.projectId, t.mindId, hash);
    if (!open) return false;
    const turns = [...parseJsonColumn<RecordedTurn[]>(open.turns, []), turn];
    updateCandidateTurns(ctx.db, open.id, { turns: JSON.stringify(turns), turnCount: turns.length, open: turns.length < MAX_RECORDED_TURNS, at });
    return true;
  });
}
