import type { ServiceContext } from "../core/context.ts";
import { mindRows } from "../lore/minds/mindStore.ts";
import { locationNamesByCreation } from "../lore/locations/locationStore.ts";
import { documentsTagged } from "../lore/documents/documentListStore.ts";
import type { ActionResult } from "../npc/interactModel.ts";
import type { SessionMessage } from "../npc/session/sessionTypes.ts";
import { behaviourNote, type ActionResultNote } from "./behaviourPrompt.ts";
import { readCooldowns } from "./cooldownStore.ts";
import { conditionsUnavailable, ignoredActionsWarning, offerActions, type ConditionCheck, type Offer } from "./offerActions.ts";
import { trustLabel, type Behaviour } from "./resolveBehaviour.ts";
import { tailGate, tailSchema, tailTokenBound, type RefNames } from "./tailSchema.ts";
import type { TailGate } from "../llm/types.ts";
import { currentTrust } from "./trust.ts";
import type { TrustKey } from "./trustStore.ts";

/** A reference parameter's grammar names at most this many (the first by name). */
const MAX_REF_NAMES = 200;

/** The typed turn's part of gather (prepareTurn): what this turn offers, its tail's schema and its note. */
export interface BehaviourTurn {
  behaviour: Behaviour;
  /** this turn's number in the conversation (cooldowns); settle reads it again */
  turn: number;
  offer: Offer;
  /** the tail's JSON schema: what the grammar allows and Ajv checks */
  schema: Record<string, unknown>;
  /** the tail's token budget (tailTokenBound) */
  maxTokens: number;
  /** the choice between "none" and an action, made on the model's probabilities (tailGate; none when nothing is offered) */
  gate?: TailGate;
  /** the player's trust as this turn starts (null: the mind keeps none) */
  trust: { value: number; label: string | null } | null;
  /** the turn's note (trust, the offered actions when narrowed) */
  note?: string;
  /** the caller's reports on earlier actions this conversation knows */
  actionResults: ActionResultNote[];
  warnings: string[];
}

export interface BehaviourGather {
  key: TrustKey;
  availableActions?: string[];
  actionResults?: ActionResult[];
  /** the conversation so far (merged): where earlier actions' ids are found */
  history: SessionMessage[];
  /** the turn's visible knowledge tags: an item reference names only items the mind may see */
  visible: string[];
  when?: ConditionCheck;
}

export function prepareBehaviour(ctx: ServiceContext, b: Behaviour, input: BehaviourGather): BehaviourTurn {
  const warnings: string[] = [];
  const cooldowns = readCooldowns(ctx.db, input.key);
  const turn = cooldowns.turns + 1;
  const refs = refNames(ctx, b, input.key.projectId, input.visible);
  const offer = offerActions(b, {
    availableActions: input.availableActions,
    turn,
    lastUsed: cooldowns.lastUsed,
    when: input.when ?? conditionsUnavailable,
    refs,
  });
  if (offer.ignored.length) warnings.push(ignoredActionsWarning(offer.ignored));
  const schema = tailSchema(b, offer.offered, refs);
  const gate = tailGate(b, offer.offered, refs);
  let trust: BehaviourTurn["trust"] = null;
  if (b.trust) {
    const { value } = currentTrust(ctx, input.key, b.trust);
    trust = { value, label: trustLabel(b.trust, value) };
  }
  const { known, unknown } = resolveActionResults(input.history, input.actionResults ?? []);
  if (unknown.length) warnings.push(`Ignored actionResults for unknown action ids: ${unknown.join(", ")}`);
  return {
    behaviour: b,
    turn,
    offer,
    schema,
    maxTokens: tailTokenBound(schema),
    ...(gate ? { gate } : {}),
    trust,
    note: behaviourNote(b, { trust, offered: offer.offered, narrowed: offer.narrowed }),
    actionResults: known,
    warnings,
  };
}

/** For a mind without behaviour, the typed turn's request fields do nothing: said, not silently dropped. */
export function behaviourFieldsIgnored(req: { availableActions?: string[]; actionResults?: ActionResult[] }): string[] {
  const given = [req.availableActions && "availableActions", req.actionResults && "actionResults"].filter(Boolean);
  return given.length ? [`Ignored ${given.join(" and ")}: this Entity Mind has no behaviour`] : [];
}

/** The reports whose id is an action of this conversation (the last report of an id wins), and the rest. */
function resolveActionResults(history: SessionMessage[], results: ActionResult[]): { known: ActionResultNote[]; unknown: string[] } {
  const names = new Map<string, string>();
  for (const m of history) for (const a of m.behaviour?.actions ?? []) names.set(a.id, a.name);
  const byId = new Map<string, ActionResultNote>();
  const unknown: string[] = [];
  for (const r of results) {
    const name = names.get(r.id);
    if (name === undefined) unknown.push(r.id);
    else byId.set(r.id, { id: r.id, name, status: r.status, ...(r.detail ? { detail: r.detail } : {}) });
  }
  return { known: [...byId.values()], unknown: [...new Set(unknown)] };
}

/**
 * The names each kind of reference may take this turn, read only for kinds the catalogue uses: the project's
 * minds and locations, and its items — lore documents tagged `items` — only those the mind may see this turn
 * (a name is lore too: the grammar must not let the model name an item outside its knowledge).
 */
function refNames(ctx: ServiceContext, b: Behaviour, projectId: string, visible: string[]): RefNames {
  const kinds = new Set(b.actions.flatMap((a) => a.params.flatMap(([, p]) => ("x-ref" in p ? [p["x-ref"]] : []))));
  const names = (list: string[]) => [...new Set(list)].sort().slice(0, MAX_REF_NAMES);
  const items = () => {
    const seen = new Set(visible.length ? documentsTagged(ctx.db, projectId, visible).map((d) => d.name) : []);
    return documentsTagged(ctx.db, projectId, ["items"]).map((d) => d.name).filter((n) => seen.has(n));
  };
  return {
    mind: kinds.has("mind") ? names(mindRows(ctx.db, projectId).map((m) => m.entity_name)) : [],
    location: kinds.has("location") ? names(locationNamesByCreation(ctx.db, projectId)) : [],
    item: kinds.has("item") ? names(items()) : [],
  };
}

/** The typed turn as the admin preview shows it: what is offered and why not, the trust, the note, the tail's grammar. */
export function previewBehaviour(bt: BehaviourTurn) {
  return {
    turn: bt.turn,
    offered: bt.offer.offered.map((a) => a.name),
    withheld: bt.offer.withheld,
    trust: bt.trust,
    note: bt.note ?? null,
    tailSchema: bt.schema,
    tailMaxTokens: bt.maxTokens,
  };
}
