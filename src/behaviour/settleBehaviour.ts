import { nowIso, type ServiceContext } from "../core/context.ts";
import type { TailResult } from "../llm/types.ts";
import { renderTail, type TurnBehaviour } from "./behaviourPrompt.ts";
import { readCooldowns, writeCooldowns } from "./cooldownStore.ts";
import { neutralTail, parseTail, type ParsedTail } from "./parseTail.ts";
import type { BehaviourTurn } from "./prepareBehaviour.ts";
import { trustLabel } from "./resolveBehaviour.ts";
import { currentTrust } from "./trust.ts";
import { writeTrustValue, type TrustKey } from "./trustStore.ts";

export interface SettledBehaviour {
  behaviour: TurnBehaviour;
  /** false: the tail was missing or unusable and the turn took the neutral default */
  valid: boolean;
  /** what the server changed or dropped (logs) */
  notes: string[];
  /**
   * The tail exactly as sampled, when it says what was settled (nothing clamped, dropped or bounded): the
   * session renders it back as is, so the next prompt matches the sequence's cache token for token.
   */
  sampledTail?: string;
}

/**
 * The typed turn's part of persist, inside the transaction that settles the turn (chargeTurn.ts): the tail
 * parsed and held to the server's rules, cooldowns read again and enforced (a concurrent turn of the same
 * conversation may have used an action since gather), the trust step applied to the stored value within
 * the mind's range, and the conversation's turn count and last uses written. Returns what the response,
 * the SSE events and the session show.
 */
export function settleBehaviour(ctx: ServiceContext, key: TrustKey, bt: BehaviourTurn, tail: TailResult | undefined): SettledBehaviour {
  const b = bt.behaviour;
  const state = readCooldowns(ctx.db, key);
  const turn = state.turns + 1;
  const parsed: ParsedTail = !tail
    ? neutralTail(b, "the generation backend returned no tail")
    : tail.finishReason !== "stop" || tail.error
      ? neutralTail(b, tail.error ? `no tail: ${tail.error}` : `the tail was cut short (${tail.finishReason})`)
      : parseTail(tail.text, bt.schema, b, bt.offer.offered, turn);
  const cooldown = new Map(b.actions.map((a) => [a.name, a.cooldownTurns]));
  const notes = [...parsed.notes];
  const actions = parsed.actions
    .filter((a) => {
      const last = state.lastUsed[a.name];
      const ok = last === undefined || turn - last > (cooldown.get(a.name) ?? 0);
      if (!ok) notes.push(`dropped ${a.name}: on cooldown`);
      return ok;
    })
    .map((a, i) => ({ ...a, id: `a${turn}-${i + 1}` }));
  const lastUsed = { ...state.lastUsed };
  for (const a of actions) lastUsed[a.name] = turn;
  writeCooldowns(ctx.db, key, { turns: turn, lastUsed });
  const behaviour: TurnBehaviour = { emotion: parsed.emotion, actions };
  if (b.trust) {
    const before = currentTrust(ctx, key, b.trust).value;
    const value = Math.min(b.trust.max, Math.max(b.trust.min, before + parsed.trustDelta));
    writeTrustValue(ctx.db, key, value, nowIso(ctx));
    behaviour.trust = { value, delta: value - before, label: trustLabel(b.trust, value) };
  }
  const same = parsed.valid && tail !== undefined && canonical(tail.text) === renderTail(behaviour);
  return { behaviour, valid: parsed.valid, notes, ...(same ? { sampledTail: tail.text } : {}) };
}

/** The tail's JSON in renderTail's form: its values, in the order written, without the grammar's whitespace. */
function canonical(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}
