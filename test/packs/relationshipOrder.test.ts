import { describe, expect, test } from "bun:test";
import { importPack } from "../../src/packs/importPack.ts";
import { loadMindProfile } from "../../src/npc/mindProfile.ts";
import { newCtx } from "./helpers.ts";

/**
 * A mind's relationships reach its prompt ("People you know") in the order the pack lists them, at every import:
 * a pack's relationships are written at one time, and ordered by their random ids they came in a new order each
 * time, so the same world read a different prompt (and drew other replies) from one import to the next.
 */
const pack = (names: string[]) => ({
  project: { name: "Order" },
  minds: [{ key: "nessa", entityName: "Nessa Dray", personality: "Quick." }, ...names.map((n) => ({ key: n.toLowerCase(), entityName: n, personality: "Plain." }))],
  relationships: names.map((n, i) => (i % 2 ? { from: "nessa", to: n.toLowerCase(), type: "FRIEND" } : { from: n.toLowerCase(), to: "nessa", type: "FRIEND", description: `${n} knows her` })),
});

describe("the order of a mind's relationships", () => {
  test("is the pack's, whatever ids an import draws", () => {
    const names = ["Hobb", "Garve", "Ilse", "Wick", "Anselm", "Maud"];
    for (let i = 0; i < 6; i++) {
      const ctx = newCtx();
      const r = importPack(ctx, pack(names) as any, {});
      const mind = loadMindProfile(ctx as any, r.projectId, (r.ids as any).minds.nessa);
      expect(mind.relationships.map((x) => x.otherName)).toEqual(names);
    }
  });
});
