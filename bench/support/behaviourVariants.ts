// Variants of the typed turn measured beside src/behaviour by bench/behaviourAccuracy.ts on the labelled set's
// tuning half: each one lever applied to the current block and tail, so a lever is kept only if its figures
// support it. Not used by the server.
import type { ActionDef, Behaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { behaviourBlock } from "../../src/behaviour/behaviourPrompt.ts";
import { NO_ACTION, tailSchema, type RefNames } from "../../src/behaviour/tailSchema.ts";

type Json = Record<string, unknown>;

/**
 * A one-token decision before the list: `{"act":false,…}` or `{"act":true,"actions":[…one or more actions…],…}`,
 * so the model says whether it acts before it reads the catalogue's names.
 */
export function decideSchema(b: Behaviour, offered: ActionDef[], refs: RefNames): Json {
  const s = tailSchema(b, offered, refs) as { properties: Json & { actions: Json & { items: Json } } };
  const { actions, ...rest } = s.properties;
  const items = actions.items as Json;
  const real = Array.isArray(items.oneOf) ? (items.oneOf as Json[]).filter((v) => (v.properties as Json & { name: { const: string } }).name.const !== NO_ACTION) : [];
  const closed = (properties: Json): Json => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false });
  if (!real.length) return closed({ act: { const: false }, ...rest });
  return {
    oneOf: [
      closed({ act: { const: false }, ...rest }),
      closed({ act: { const: true }, actions: { type: "array", items: real.length === 1 ? real[0] : { oneOf: real }, minItems: 1, maxItems: actions.maxItems }, ...rest }),
    ],
  };
}

/** The decision's tail in the current tail's shape (for parseTail). */
export function fromDecide(text: string): string {
  try {
    const v = JSON.parse(text) as Json;
    const { act, actions, ...rest } = v;
    return JSON.stringify({ actions: act ? actions : [{ name: NO_ACTION }], ...rest });
  } catch {
    return text;
  }
}

export function decideBlock(b: Behaviour): string {
  return behaviourBlock(b)
    .replace(`- ${NO_ACTION}: do nothing (most turns).\n`, "")
    .replace(/need "none"\. /, 'need none. First write "act": false when you take none, or "act": true and then the list of actions. ')
    .split(`{"actions":[{"name":"${NO_ACTION}"}],`)
    .join('{"act":false,')
    .split('{"actions":[')
    .join('{"act":true,"actions":[');
}

/** At most one action a turn: the list's length bound, whatever the mind allows. */
export function oneActionSchema(b: Behaviour, offered: ActionDef[], refs: RefNames): Json {
  const s = tailSchema(b, offered, refs) as { properties: { actions: Json } };
  s.properties.actions.maxItems = 1;
  return s;
}
