import type { ActionDef, Behaviour } from "./resolveBehaviour.ts";
import { missingRefs, type RefNames } from "./tailSchema.ts";

/** Evaluates an action's `when` condition for this turn; the condition language plugs in here. */
export type ConditionCheck = (condition: string) => { value: boolean; reason?: string };

/**
 * For a caller with no condition scope: an action with a `when` is never offered (a condition that cannot
 * be checked must not open an action the author meant to gate). A turn checks its own scope (prepareTurn).
 */
export const conditionsUnavailable: ConditionCheck = () => ({ value: false, reason: "no condition scope to check it against" });

export interface OfferInput {
  /** the request's availableActions: only these may be offered (absent: all of the mind's) */
  availableActions?: string[];
  /** this turn's number in the conversation, from 1 */
  turn: number;
  /** action name → the turn it was last used */
  lastUsed: Record<string, number>;
  when: ConditionCheck;
  refs: RefNames;
}

export interface Offer {
  offered: ActionDef[];
  /** the mind's actions not offered this turn, and why (the admin preview shows them) */
  withheld: { name: string; reason: string }[];
  /** availableActions names the mind does not have (ignored, reported in metadata.warnings) */
  ignored: string[];
  /** fewer actions than the mind's whole catalogue: the turn's note lists the ones offered */
  narrowed: boolean;
}

/**
 * The actions this turn may take: the mind's catalogue ∩ the request's availableActions, minus actions on
 * cooldown, minus actions whose `when` is false, minus actions with a reference parameter that has nothing
 * to refer to. Only these reach the grammar, so the model cannot name any other.
 */
export function offerActions(b: Behaviour, input: OfferInput): Offer {
  const available = input.availableActions ? new Set(input.availableActions) : null;
  const known = new Set(b.actions.map((a) => a.name));
  const ignored = input.availableActions ? [...new Set(input.availableActions.filter((n) => !known.has(n)))] : [];
  const offered: ActionDef[] = [];
  const withheld: Offer["withheld"] = [];
  for (const a of b.actions) {
    const reason = withholdReason(a, input, available);
    if (reason) withheld.push({ name: a.name, reason });
    else offered.push(a);
  }
  return { offered, withheld, ignored, narrowed: offered.length < b.actions.length };
}

function withholdReason(a: ActionDef, input: OfferInput, available: Set<string> | null): string | null {
  if (available && !available.has(a.name)) return "not in availableActions";
  const last = input.lastUsed[a.name];
  if (a.cooldownTurns > 0 && last !== undefined && input.turn - last <= a.cooldownTurns) {
    const left = a.cooldownTurns - (input.turn - last) + 1;
    return `cooldown: offered again in ${left} turn${left === 1 ? "" : "s"}`;
  }
  if (a.when !== null) {
    const r = input.when(a.when);
    if (!r.value) return `when is false (${a.when})${r.reason ? `: ${r.reason}` : ""}`;
  }
  return missingRefs(a, input.refs);
}

export function ignoredActionsWarning(names: string[]): string {
  return `Ignored availableActions not configured for this Entity Mind: ${names.join(", ")}`;
}
