import type { ServiceContext } from "../core/context.ts";
import type { Db } from "../db/openDatabase.ts";
import { compile, compiledCondition, type CompiledCondition, type TurnConditions } from "../conditions/compileCondition.ts";
import { gatedDocuments, gateVersion, type GateExclusion, type GatedDocumentRow } from "../lore/documents/chunkSearchStore.ts";

/**
 * Which documents this turn may draw on, by their conditions and timers (docs/internals/turn-pipeline.md:
 * document `when` and `sticky` / `cooldown` / `delay`). Retrieval leaves held-back documents out of both
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
  /** whether the document is held back this turn */
  blocks(documentId: string): boolean;
  /** the same for SQL (null: nothing held back) */
  exclusion: GateExclusion | null;
  /** whether a note of this document that came in `ago` turns back may stay in the conversation */
  keeps(documentId: string, ago: number): boolean;
  /** the timed documents among these (their arrivals are recorded with the turn) */
  timedOf(documentIds: readonly string[]): string[];
  /** every gated document with its verdict (the admin preview; made when asked for) */
  readonly trace: GateVerdict[];
}

/** A gate that lets everything through (no gated documents). */
export const OPEN_GATE: LoreGate = { blocks: () => false, exclusion: null, keeps: () => true, timedOf: () => [], trace: [] };

const isTimed = (d: GatedDocumentRow) => d.sticky !== null || d.cooldown !== null || d.delay !== null;

interface Gated {
  version: number;
  byId: Map<string, GatedDocumentRow>;
  /** distinct condition texts */
  conditions: string[];
  conditionSet: ReadonlySet<string>;
  timed: GatedDocumentRow[];
  /** the compiled form of each condition, kept with the project (not in the shared cache, which a big project could churn) */
  compiled: Map<string, CompiledCondition | Error>;
}

/**
 * A project's gated documents, read again only when its gate version changed (triggers bump it on
 * every write of a gated document, from any process): a turn then costs one small query, not a read
 * of every gated document. Per database, a bounded number of projects.
 */
const cache = new WeakMap<Db, Map<string, Gated>>();
const PROJECTS = 256;

function gatedOf(db: Db, projectId: string): Gated {
  let perDb = cache.get(db);
  if (!perDb) cache.set(db, (perDb = new Map()));
  const version = gateVersion(db, projectId);
  const have = perDb.get(projectId);
  if (have && have.version === version) return have;
  const rows = gatedDocuments(db, projectId);
  const g: Gated = {
    version,
    byId: new Map(rows.map((r) => [r.id, r])),
    conditions: [],
    conditionSet: new Set(rows.flatMap((r) => (r.when === null ? [] : [r.when]))),
    timed: rows.filter(isTimed),
    compiled: new Map(),
  };
  g.conditions = [...g.conditionSet];
  perDb.delete(projectId);
  if (perDb.size >= PROJECTS) perDb.delete(perDb.keys().next().value!);
  perDb.set(projectId, g);
  return g;
}

/** Compiled conditions for a turn of this project: its documents' conditions from the project's own cache. */
export function projectConditions(db: Db, projectId: string): (text: string) => CompiledCondition {
  const g = gatedOf(db, projectId);
  return (text) => {
    if (!g.conditionSet.has(text)) return compiledCondition(text);
    let c = g.compiled.get(text);
    if (c === undefined) {
      try {
        c = compile(text);
      } catch (e) {
        c = e as Error;
      }
      g.compiled.set(text, c);
    }
    if (c instanceof Error) throw c;
    return c;
  };
}

/**
 * The gate of one turn. `turn` is the turns so far in this conversation; `arrivals` holds, for each
 * document, how many turns back its latest note came in.
 */
export function loreGate(ctx: ServiceContext, projectId: string, q: { conditions: TurnConditions; turn: number; arrivals: ReadonlyMap<string, number> }): LoreGate {
  const g = gatedOf(ctx.db, projectId);
  if (g.byId.size === 0) return OPEN_GATE;
  const cooling = new Set(g.timed.filter((d) => coolingDown(d, q.arrivals.get(d.id))).map((d) => d.id));
  const verdictOf = (d: GatedDocumentRow) => verdict(d, q, cooling.has(d.id));
  return {
    blocks(documentId) {
      const d = g.byId.get(documentId);
      return d !== undefined && !verdictOf(d).open;
    },
    exclusion: { conditions: g.conditions.filter((c) => !q.conditions.holds(c)), turn: q.turn, ids: [...cooling] },
    keeps(documentId, ago) {
      const d = g.byId.get(documentId);
      if (!d) return true; // not gated
      if (d.when !== null && !q.conditions.holds(d.when)) return false;
      if (d.delay !== null && q.turn < d.delay) return false;
      return d.sticky === null || ago <= d.sticky;
    },
    timedOf: (ids) =>
      [...new Set(ids)].filter((id) => {
        const d = g.byId.get(id);
        return d !== undefined && isTimed(d);
      }),
    get trace() {
      return [...g.byId.values()].map((d) => {
        const { open, reason } = verdictOf(d);
        return { documentId: d.id, documentName: d.name, when: d.when, sticky: d.sticky, cooldown: d.cooldown, delay: d.delay, open, reason };
      });
    },
  };
}

/** Cooling down: its last note came in `ago` turns back, its sticky turns are over and its cooldown is not. */
function coolingDown(d: GatedDocumentRow, ago: number | undefined): boolean {
  if (ago === undefined || d.cooldown === null) return false;
  const held = d.sticky ?? 0;
  return ago > held && ago <= held + d.cooldown;
}

function verdict(d: GatedDocumentRow, q: { conditions: TurnConditions; turn: number; arrivals: ReadonlyMap<string, number> }, cooling: boolean): { open: boolean; reason: string } {
  if (d.when !== null && !q.conditions.holds(d.when)) return { open: false, reason: "its condition is false" };
  if (d.delay !== null && q.turn < d.delay) return { open: false, reason: `delay: opens at turn ${d.delay} (this is turn ${q.turn})` };
  const ago = q.arrivals.get(d.id);
  if (cooling) return { open: false, reason: `cooldown: may come in again in ${(d.sticky ?? 0) + d.cooldown! - ago! + 1} turn(s)` };
  if (ago !== undefined && d.sticky !== null && ago <= d.sticky) return { open: true, reason: `sticky: in the conversation for ${d.sticky - ago} more turn(s)` };
  return { open: true, reason: d.when !== null ? "its condition holds" : "its timers allow it" };
}
