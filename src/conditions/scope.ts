import type { StateValue } from "../state/stateKeys.ts";

/**
 * What a turn's conditions read (docs/internals/turn-pipeline.md, "The condition scope"): the
 * player's state (with this request's `state` laid over it), the world's, the declared defaults,
 * the player's trust with the mind and the turns so far. Built once per turn.
 */
export interface Scope {
  player: ReadonlyMap<string, StateValue>;
  world: ReadonlyMap<string, StateValue>;
  /** declared keys' defaults: what the world reads when it has not set them */
  defaults: ReadonlyMap<string, StateValue>;
  /** the player's trust with this mind (0 when the mind keeps none) */
  trust: number;
  /** turns so far in this conversation */
  turn: number;
}

export function emptyScope(over: Partial<Scope> = {}): Scope {
  return { player: new Map(), world: new Map(), defaults: new Map(), trust: 0, turn: 0, ...over };
}
