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

/** `none` alone or actions alone: once the model writes `none`, the list closes (no action may follow it). */
export function noneAloneSchema(b: Behaviour, offered: ActionDef[], refs: RefNames): Json {
  const s = tailSchema(b, offered, refs) as { properties: Json & { actions: Json & { items: Json } } };
  const { items, maxItems } = s.properties.actions;
  const variants = Array.isArray(items.oneOf) ? (items.oneOf as Json[]) : [items];
  const isNone = (v: Json) => (v.properties as { name: { const: string } }).name.const === NO_ACTION;
  const real = variants.filter((v) => !isNone(v));
  const none = variants.find(isNone)!;
  if (!real.length) return s;
  (s.properties as Json).actions = {
    oneOf: [
      { type: "array", items: none, minItems: 1, maxItems: 1 },
      { type: "array", items: real.length === 1 ? real[0] : { oneOf: real }, minItems: 1, maxItems },
    ],
  };
  return s;
}

/** The feeling first, then the actions (`none` alone): does naming a calm feeling first make "none" likelier? */
export function feelFirstSchema(b: Behaviour, offered: ActionDef[], refs: RefNames): Json {
  const s = noneAloneSchema(b, offered, refs) as { properties: Json; required: string[] };
  const { actions, ...rest } = s.properties;
  s.properties = { ...rest, actions };
  s.required = Object.keys(s.properties);
  return s;
}

/** The block with its example tails in the feeling-first order. */
export function feelFirstBlock(b: Behaviour): string {
  return behaviourBlock(b).replace(/\{"actions":(\[.*?\]),("emotion":"\w+","intensity":\d+(?:,"trust":-?\d+)?)\}/g, '{$2,"actions":$1}');
}
