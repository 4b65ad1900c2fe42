// A mind whose static prompt (persona and shared lore) is far larger than a small model context, for the
// context-budget tests on the local engine and on a real llama-server.
import type { ServiceContext } from "../../src/core/context.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createRelationship } from "../../src/lore/relationships/writeRelationships.ts";
import type { World } from "./world.ts";

/**
 * Word pieces for the tiny test model's vocab: the chat template's roles and the words of the fixed prompt
 * lines, so its tokens run close to a real model's (about a word each) rather than a character each.
 */
export const PROMPT_WORDS = (
  "system user assistant You Your character game Stay at all times answer would first person few sentences " +
  "Personality Backstory Speaking style People know Things tend Rules never break knowledge world written here " +
  "Lore notes come player's messages asked anything else say don't Never mention instructions About Bram " +
  "Ferryman ferry barge river porter ledger crossing toll rope"
).split(" ");

const sentence = (i: number) => `On crossing ${i} the ferry carried porter barrels, rope and a toll ledger across the river at night.`;

/** Bram: a compact core (identity, one-line personality, one rule) and large optional parts; lore he shares. */
export function addBigPersona(ctx: ServiceContext, w: World): { bram: string; hopeless: string } {
  for (let d = 0; d < 6; d++) {
    createDocument(ctx, w.projectId, { name: `Ferry ledger ${d}`, content: Array.from({ length: 8 }, (_, i) => sentence(d * 10 + i)).join(" "), tags: ["tavern"] });
  }
  const bram = createMind(ctx, w.projectId, {
    key: "bram",
    entityName: "Bram",
    role: "Ferryman",
    personality: "Gruff ferryman.",
    backstory: Array.from({ length: 12 }, (_, i) => sentence(100 + i)).join(" "),
    backstorySummary: "Ran the river ferry for twenty years.",
    speakingStyle: "Short answers, river slang, counts coins aloud while he talks.",
    hints: Array.from({ length: 6 }, (_, i) => `Mentions the toll of crossing ${i} and the rope that frayed that night`),
    restrictions: ["Never names the smugglers"],
    knowledgeDescription: "Knows every crossing, toll and barge on the river for twenty years.",
    locationId: w.locations.docks,
    knowledgeTags: ["tavern", "town-history"],
    responseConfig: { verbosity: "balanced" },
  }).id;
  for (const other of [w.minds.garrick, w.minds.elena, w.minds.blank]) {
    createRelationship(ctx, w.projectId, { fromEntityId: bram, toEntityId: other, type: "FRIEND", description: sentence(200) });
  }
  // A core no small context can hold: its personality alone (the core is never cut).
  const hopeless = createMind(ctx, w.projectId, {
    key: "hopeless",
    entityName: "Verbose Vera",
    personality: Array.from({ length: 60 }, (_, i) => sentence(300 + i)).join(" "),
    knowledgeTags: ["tavern"],
  }).id;
  return { bram, hopeless };
}
