import type { BehaviourInput } from "../../src/behaviour/behaviourModel.ts";
import type { RefNames } from "../../src/behaviour/tailSchema.ts";

/** A shopkeeper's behaviour: every parameter kind, a cooldown, a per-turn cap, a `when`, trust with labels. */
export const SHOPKEEPER: BehaviourInput = {
  emotions: ["neutral", "happy", "angry", "afraid"],
  maxActionsPerTurn: 3,
  actions: [
    {
      name: "give_item",
      description: "Hand an item to the player.",
      params: {
        type: "object",
        properties: {
          item: { type: "string", "x-ref": "item", description: "what to give" },
          count: { type: "integer", minimum: 1, maximum: 5 },
        },
      },
      maxPerTurn: 1,
    },
    {
      name: "give_gold",
      description: "Pay the player.",
      params: { type: "object", properties: { amount: { type: "integer", minimum: 1, maximum: 100 } } },
      cooldownTurns: 2,
    },
    {
      name: "say_to",
      description: "Call out to someone nearby.",
      params: {
        type: "object",
        properties: {
          who: { type: "string", "x-ref": "mind" },
          line: { type: "string", maxLength: 40 },
          tone: { type: "string", enum: ["calm", "urgent"] },
          loud: { type: "boolean" },
        },
      },
    },
    { name: "close_shop", description: "Close the shop for the night.", when: "quest.flood.stage > 2" },
  ],
  trust: { min: -10, max: 10, initial: 0, maxStep: 2, labels: [{ min: -10, label: "hostile" }, { min: 0, label: "neutral" }, { min: 5, label: "friendly" }] },
};

export const REFS: RefNames = { mind: ["Elena", "Garrick"], location: ["Thornhaven"], item: ["Iron key", "Map of the tunnels"] };
