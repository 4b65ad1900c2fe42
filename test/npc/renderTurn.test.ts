import { describe, expect, test } from "bun:test";
import { renderLore, renderUserTurn } from "../../src/npc/prompt/renderTurn.ts";

const note = (documentName: string, text: string, i: number) => ({ chunkId: `c${i}`, chunkIndex: 0, documentId: `d${i}`, documentName, text, tags: ["t"] });

describe("renderTurn: how lore reaches the model", () => {
  const lore = [note("The Rusty Tankard", "The house porter is Wend Water. ", 1), note("Town history", "The Great Flood was sixty-one years ago.", 2)];

  test("one paragraph per note, named in a sentence, the best match (first in rank) last", () => {
    expect(renderLore(lore)).toBe("About Town history: The Great Flood was sixty-one years ago.\n\nAbout The Rusty Tankard: The house porter is Wend Water.");
  });

  test("no parenthesised or bracketed document headings for a model to copy", () => {
    const text = renderLore(lore);
    expect(text).not.toMatch(/(^|\n)\s*\(/);
    expect(text).not.toMatch(/(^|\n)\s*\[(?!Lore\])/);
  });

  test("the user turn: scene, lore, memories, then the player's line; the same notes render the same text", () => {
    const notes = { scene: "Location: the inn", lore, memories: ["The player's name is Mara."] };
    const a = renderUserTurn("What do you pour?", notes);
    expect(a).toBe(
      "[Scene]\nLocation: the inn\n\n[Lore]\n" +
        renderLore(lore) +
        "\n\n[You remember about this player]\n- The player's name is Mara.\n\n[Player]\nWhat do you pour?",
    );
    expect(renderUserTurn("What do you pour?", { ...notes, lore: [...lore] })).toBe(a);
    expect(renderUserTurn("Hi", undefined)).toBe("Hi");
  });
});
