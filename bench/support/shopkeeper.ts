// The typed-turn benches' mind: a shopkeeper with four actions (two with parameters), four emotions and trust,
// and six player lines, some calling for an action and some for none.
import type { ChatMessage, TailRequest } from "../../src/llm/types.ts";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { BEHAVIOUR_DELIMITER, behaviourBlock } from "../../src/behaviour/behaviourPrompt.ts";
import { conditionsUnavailable, offerActions } from "../../src/behaviour/offerActions.ts";
import { tailSchema, tailTokenBound } from "../../src/behaviour/tailSchema.ts";

export const b = resolveBehaviour({
  emotions: ["neutral", "happy", "angry", "afraid"],
  maxActionsPerTurn: 2,
  actions: [
    { name: "give_item", description: "Hand an item to the player.", params: { type: "object", properties: { item: { type: "string", "x-ref": "item" }, count: { type: "integer", minimum: 1, maximum: 5 } } } },
    { name: "give_gold", description: "Pay the player.", params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 100 } } } },
    { name: "call_guard", description: "Shout for the town guard when threatened." },
    { name: "close_shop", description: "Close the shop and send the player away." },
  ],
  trust: { maxStep: 2 },
})!;
export const refs = { mind: [], location: [], item: ["Iron key", "Map of the tunnels", "Healing draught"] };
export const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs }).offered;
export const schema = tailSchema(b, offered, refs);
export const tail: TailRequest = { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: schema, maxTokens: tailTokenBound(schema) };
export const system =
  "You are Bram, the shopkeeper of the north gate market, a character in a game. Stay in character and answer in a few sentences.\n" +
  "Personality: gruff but fair; loves a good bargain; hates thieves.\n" +
  behaviourBlock(b);
export const lines = [
  "Good morning! Do you have the iron key I ordered?",
  "I'll pay you fifty gold for the map of the tunnels.",
  "Hand over your gold or I'll burn this shop down!",
  "Thank you for your help yesterday, friend.",
  "What do you know about the smugglers?",
  "Can I get a healing draught? I'm hurt.",
];

/**
 * A turn's messages. Each prompt opens with its own number, so no sequence (or server slot) reuses another turn's
 * prompt: every run pays for the whole prompt, and runs compare like for like.
 */
export function shopMessages(line: string, nonce: number): ChatMessage[] {
  return [{ role: "system", content: `(${nonce % 1000})\n${system}` }, { role: "user", content: line }];
}
