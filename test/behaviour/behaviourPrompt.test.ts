import { describe, expect, test } from "bun:test";
import { resolveBehaviour } from "../../src/behaviour/resolveBehaviour.ts";
import { BEHAVIOUR_DELIMITER, behaviourBlock, behaviourNote, renderActionResults, renderReplyWithTail, renderTail } from "../../src/behaviour/behaviourPrompt.ts";
import { conditionsUnavailable, offerActions } from "../../src/behaviour/offerActions.ts";
import { parseTail } from "../../src/behaviour/parseTail.ts";
import { tailSchema } from "../../src/behaviour/tailSchema.ts";
import { REFS, SHOPKEEPER } from "./fixtures.ts";

const b = resolveBehaviour(SHOPKEEPER)!;

describe("the static behaviour block", () => {
  const block = behaviourBlock(b);
  test("names the emotions, every action with its description and parameters, the trust rule", () => {
    expect(block).toContain("Emotions: neutral, happy, angry, afraid; intensity from 0 to 10.");
    expect(block).toContain("At most 3 per turn.");
    expect(block).toContain("- give_item: Hand an item to the player. Parameters: item (the name of an item: what to give); count (a whole number from 1 to 5).");
    expect(block).toContain("- say_to: Call out to someone nearby. Parameters: who (the name of a mind); line (text, at most 40 characters); tone (one of calm, urgent); loud (true or false).");
    // The whole catalogue, `when`-gated actions included: narrowing is the turn's business, not the static prompt's.
    expect(block).toContain("- close_shop: Close the shop for the night.");
    expect(block).toContain("from -10 to 10. Each turn change it by at most 2");
  });
  test("shows two tails, one that acts and one that does not, in exactly the form a past turn renders", () => {
    expect(block.split("[Behaviour]").length - 1).toBe(3); // the instruction and the two examples
    expect(block).toContain(`Very well.\n[Behaviour]\n{"actions":[{"name":"give_item","params":{"item":"<item name>","count":1}}],"emotion":"happy","intensity":6,"trust":0}`);
    expect(block).toContain(`Is that so?\n[Behaviour]\n{"actions":[{"name":"none"}],"emotion":"neutral","intensity":6,"trust":0}`);
    // "none" is listed as a choice beside the actions
    expect(block).toContain("Take an action only when the player asks for it or the scene plainly demands it");
    // "none" is listed first, before the actions
    expect(block.indexOf("- none: do nothing (most turns).")).toBeLessThan(block.indexOf("- give_item:"));
  });
  test("nothing per player: the same text whatever the players' trust or the turn's narrowing", () => {
    expect(behaviourBlock(resolveBehaviour(SHOPKEEPER)!)).toBe(block);
    expect(block).not.toMatch(/trust in this player: -?\d/);
  });
  test("a mind without actions or trust says so", () => {
    const plain = behaviourBlock(resolveBehaviour({})!);
    expect(plain).toContain('You take no actions: the list is always [{"name":"none"}].');
    expect(plain).not.toContain("Trust:");
  });
});

describe("the turn's note", () => {
  test("trust always (when kept); offered actions only when narrowed", () => {
    const all = offerActions(b, { turn: 1, lastUsed: {}, when: () => ({ value: true }), refs: REFS });
    expect(behaviourNote(b, { trust: { value: 3, label: "neutral" }, ...all })).toBe("Your trust in this player: 3 (neutral).");
    const some = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS, availableActions: ["give_gold"] });
    expect(behaviourNote(b, { trust: { value: -4, label: "hostile" }, ...some })).toBe("Your trust in this player: -4 (hostile).\nActions possible now: give_gold; no others.");
    const none = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS, availableActions: [] });
    expect(behaviourNote(resolveBehaviour({ actions: SHOPKEEPER.actions })!, { trust: null, ...none })).toBe("No actions are possible now.");
    expect(behaviourNote(resolveBehaviour({})!, { trust: null, ...none })).toBeUndefined();
  });
  test("action results as the next turn's note", () => {
    expect(renderActionResults([{ id: "a2-1", name: "give_item", status: "completed" }, { id: "a2-2", name: "say_to", status: "failed", detail: "Elena is asleep" }])).toBe(
      "- give_item (a2-1): completed\n- say_to (a2-2): failed (Elena is asleep)",
    );
  });
});

describe("a past turn rendered back", () => {
  test("words, the delimiter, the tail; the tail parses under the schema it came from", () => {
    const offered = offerActions(b, { turn: 1, lastUsed: {}, when: conditionsUnavailable, refs: REFS }).offered;
    const t = { emotion: { name: "happy", intensity: 0.6 }, actions: [{ id: "a1-1", name: "give_item", params: { item: "Iron key", count: 2 } }], trust: { value: 1, delta: 1, label: "neutral" } };
    const text = renderReplyWithTail("Take it.", t);
    expect(text).toBe('Take it.\n\n[Behaviour]\n{"actions":[{"name":"give_item","params":{"item":"Iron key","count":2}}],"emotion":"happy","intensity":6,"trust":1}');
    const parsed = parseTail(renderTail(t), tailSchema(b, offered, REFS), b, offered, 1);
    expect(parsed.valid).toBe(true);
    expect(parsed.actions).toEqual(t.actions);
  });
});
