import type { ServiceContext } from "../core/context.ts";
import type { TurnConditions } from "../conditions/compileCondition.ts";
import { gatedDocuments, type GatedDocumentRow } from "../lore/documents/chunkSearchStore.ts";

/**
 * Which documents this turn may draw on, by their conditions and timers (docs/internals/turn-pipeline.md:
 * document `when` and `sticky` / `cooldown` / `delay`). Retrieval leaves blocked documents out of both
 * searches and re-checks every hit; the conversation's earlier lore notes are re-checked too, so a note
 * whose condition turned false leaves the prompt at once.
 *
 * Timers count turns of one conversation (the session, which a memory checkpoint starts anew):
 * - `delay: D` — the document opens once the conversation has had D turns;
 * - `sticky: S` — a note of the document stays in the conversation for S turns after the turn it came
 *   in, then leaves (without sticky it stays, as any lore does);
 * - `cooldown: C` — after that (or, without sticky, after the turn it came in) the document may not
 *   come in again for C turns.
 */

export interface GateVerdict {
  documentId: string;
  documentName: string;
  when: string | null;
  sticky: number | null;
  cooldown: number | null;
  delay: number | null;
  /** may the document reach this turn's prompt */
  open: boolean;
  reason: string;
}

export interface LoreGate {
  /** documents whose chunks may not be retrieved this turn */
  blocked: ReadonlySet<string>;
  /** whether a note of this document that came in `ago` turns back may stay in the conversation */
  keeps(documentId: string, ago: number): boolean;
  /** the timed documents among these (their arrivals are recorded with the turn) */
  timedOf(documentIds: readonly string[]): string[];
  /** every gated document with its verdict (the admin preview) */
  trace: GateVerdict[];
}

/** A gate that lets everything through (no gated documents). */
export const OPEN_GATE: LoreGate = { blocked: new Set(), keeps: () => true, timedOf: () => [], trace: [] };

const isTimed = (d: GatedDocumentRow) => d.sticky !== null || d.cooldown !== null || d.delay !== null;

/**
 * The gate of one turn. `turn` is the turns so far in this conversation; `arrivals` holds, for each
 * timed document, how many turns back its latest note came in (0 would be this turn).
 */
export function loreGate(ctx: ServiceContext, projectId: string, q: { conditions: TurnConditions; turn: number; arrivals: ReadonlyMap<string, number> }): LoreGate {
  const docs = gatedDocuments(ctx.db, projectId);
  if (docs.length === 0) return OPEN_GATE;
  const blocked = new Set<string>();
  const byId = new Map<string, GatedDocumentRow>();
  const trace: GateVerdict[] = [];
  for (const d of docs) {
    byId.set(d.id, d);
    const { open, reason } = verdict(d, q);
    if (!open) blocked.add(d.id);
    trace.push({ documentId: d.id, documentName: d.name, when: d.when, sticky: d.sticky, cooldown: d.cooldown, delay: d.delay, open, reason });
  }
  return {
    blocked,
    keeps(documentId, ago) {
      const d = byId.get(documentId);
      if (!d) return true; // not gated
      if (d.when !== null && !q.conditions.holds(d.when)) return false;
      if (d.delay !== null && q.turn < d.delay) return false;
      return d.sticky === null || ago <= d.sticky;
    },
    timedOf: (ids) => [...new Set(ids.filter((id) => byId.has(id) && isTimed(byId.get(id)!)))],
    trace,
  };
}

function verdict(d: GatedDocumentRow, q: { conditions: TurnConditions; turn: number; arrivals: ReadonlyMap<string, number> }): { open: boolean; reason: string } {
  if (d.when !== null && !q.conditions.holds(d.when)) return { open: false, reason: "its condition is false" };
  if (d.delay !== null && q.turn < d.delay) return { open: false, reason: `delay: opens at turn ${d.delay} (this is turn ${q.turn})` };
  const ago = q.arrivals.get(d.id);
  if (ago !== undefined) {
    if (d.sticky !== null && ago <= d.sticky) return { open: true, reason: `sticky: in the conversation for ${d.sticky - ago} more turn(s)` };
    const held = d.sticky ?? 0;
    if (d.cooldown !== null && ago > held && ago <= held + d.cooldown) {
      return { open: false, reason: `cooldown: may come in again in ${held + d.cooldown - ago + 1} turn(s)` };
    }
  }
  return { open: true, reason: d.when !== null ? "its condition holds" : "its timers allow it" };
}
