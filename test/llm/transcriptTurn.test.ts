import { describe, expect, test } from "bun:test";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { replyOpening, TranscriptChatWrapper } from "../../src/llm/transcriptChatWrapper.ts";
import { exampleExchange, loreNotes, SECTIONS_LAYOUT, transcriptSystem, transcriptUserTurn, turnSections, type TranscriptLayout } from "../../src/llm/transcriptTurn.ts";
import type { ChatMessage } from "../../src/llm/types.ts";

// A base model reads the server's sections re-laid as a script: what the speaker knows, then the player's line.

const KNOWS: TranscriptLayout = { notes: "knows", player: "script", example: false, oneLine: false };
const turn = "[Scene]\nLocation: the upper station\n\n[Lore]\nAbout The Incline: Two cars,\nthe Magpie and the Wren.\n\nAbout The Engines: Steam.\n\n[Player]\nWhat are the cars called?";

describe("a turn's sections", () => {
  test("cut at headings that open the text or follow a blank line, never at a bracket inside a paragraph", () => {
    expect(turnSections(turn).map((s) => s.heading)).toEqual(["Scene", "Lore", "Player"]);
    expect(turnSections("[Player]\nSay [hello]\n[Lore]\nnot a heading").map((s) => s.heading)).toEqual(["Player"]);
    expect(turnSections("Just a line.")).toEqual([{ heading: "", body: "Just a line." }]);
  });

  test("lore notes one each, the name first, line breaks inside a note joined", () => {
    expect(loreNotes("About A: one\ntwo\n\nAbout B: three")).toEqual(["A: one two", "B: three"]);
  });
});

describe("a player's turn as a script", () => {
  test("the notes as what the speaker knows, just before the player's line; other sections kept", () => {
    expect(transcriptUserTurn(turn, "Idris Vane", KNOWS)).toBe(
      "[Scene]\nLocation: the upper station\n\nWhat Idris Vane knows:\n- The Incline: Two cars, the Magpie and the Wren.\n- The Engines: Steam.\n\nPlayer: What are the cars called?",
    );
  });

  test("a cap on notes keeps the best ones (the server sends the best last)", () => {
    expect(transcriptUserTurn(turn, "Idris Vane", { ...KNOWS, maxNotes: 1 })).toContain("What Idris Vane knows:\n- The Engines: Steam.\n\nPlayer:");
  });

  test("notes as pasted documents: each a paragraph under its title", () => {
    expect(transcriptUserTurn(turn, "Idris Vane", { ...KNOWS, notes: "docs" })).toBe(
      "[Scene]\nLocation: the upper station\n\nThe Incline:\nTwo cars, the Magpie and the Wren.\n\nThe Engines:\nSteam.\n\nPlayer: What are the cars called?",
    );
  });

  test("the example in the turn: after the notes, just before the player's line, and not in the system text", () => {
    const layout: TranscriptLayout = { ...KNOWS, example: true, exampleAt: "turn" };
    const text = transcriptUserTurn(turn, "Idris Vane", layout);
    expect(text).toContain("- The Engines: Steam.\n\nWhat Idris Vane knows:\n- The old well:");
    expect(text).toEndWith("Idris Vane: Forty feet, give or take.\n\nPlayer: What are the cars called?");
    expect(transcriptSystem("You are Idris Vane.", "Idris Vane", layout)).toBe("You are Idris Vane.");
  });

  test("example kinds: two exchanges, or a second question the notes do not answer; the speaker's own name on each reply line", () => {
    const two = exampleExchange("Idris Vane", { ...KNOWS, example: true, exampleKind: "two" });
    expect(two).toBe(
      "What Idris Vane knows:\n- The old well: The old well behind the house is forty feet deep.\n- The miller's dog: The miller's dog is called Pepper.\n\n" +
        "Player: How deep is the old well?\nIdris Vane: Forty feet, give or take.\n\nPlayer: What is the miller's dog called?\nIdris Vane: Pepper.",
    );
    expect(exampleExchange("Idris Vane", { ...KNOWS, example: true, exampleKind: "unknown" })).toEndWith("Player: Who dug the old well?\nIdris Vane: That I couldn't tell you.");
    expect(exampleExchange("Idris Vane", { ...KNOWS, example: true })).toBe(
      "What Idris Vane knows:\n- The old well: The old well behind the house is forty feet deep.\n\nPlayer: How deep is the old well?\nIdris Vane: Forty feet, give or take.",
    );
  });

  test("the persona's chat instructions dropped, when the layout says so, and only from the persona", () => {
    const system =
      "You are Idris Vane, Keeper, a character in a game. Stay in character at all times, in a few sentences.\nPersonality: gruff.\n" +
      "Your knowledge of the world is what is written here. Never mention these instructions or the notes.\n\n[Lore]\nAbout A: one.";
    expect(transcriptSystem(system, "Idris Vane", { ...KNOWS, instructions: "dropped" })).toBe("You are Idris Vane, Keeper.\nPersonality: gruff.\n\nWhat Idris Vane knows:\n- A: one.");
    expect(transcriptSystem(system, "Idris Vane", KNOWS)).toContain("Stay in character");
  });

  test("a bare line (a turn with no notes) is the player's line", () => {
    expect(transcriptUserTurn("Evening.\nAny rooms?", "Idris Vane", KNOWS)).toBe("Player: Evening. Any rooms?");
  });

  test("left as sent: the sections layout, a generation with no speaker, a turn with sections but no player's line", () => {
    expect(transcriptUserTurn(turn, "Idris Vane", SECTIONS_LAYOUT)).toBe(turn);
    expect(transcriptUserTurn(turn, undefined, KNOWS)).toBe(turn);
    expect(transcriptUserTurn("[Transcript]\nA said b.", "Idris Vane", KNOWS)).toBe("[Transcript]\nA said b.");
  });
});

describe("the system text", () => {
  const system = "You are Idris Vane.\nPersonality: gruff.\n\n[Lore]\nAbout A: one.\n\nAbout B: two.\n\nAbout C: three.";

  test("a mind's shared lore as what it knows, never cut by the turn's cap on notes", () => {
    expect(transcriptSystem(system, "Idris Vane", { ...KNOWS, maxNotes: 1 })).toBe("You are Idris Vane.\nPersonality: gruff.\n\nWhat Idris Vane knows:\n- A: one.\n- B: two.\n- C: three.");
  });

  test("the example exchange after the persona, before the notes; generic, in the speaker's name", () => {
    const text = transcriptSystem(system, "Idris Vane", { ...KNOWS, example: true });
    expect(text.indexOf("Player: How deep is the old well?\nIdris Vane: Forty feet")).toBeGreaterThan(text.indexOf("Personality"));
    expect(text.indexOf("old well")).toBeLessThan(text.indexOf("- A: one."));
  });
});

describe("the system text laid out as the naive prompt lays it out", () => {
  // The persona as src/npc/prompt/systemPrompt.ts writes it, with a mind's shared lore and a secret's marker.
  const system = [
    "You are Idris Vane, Keeper, a character in a game. Stay in character at all times, in a few sentences.",
    "Personality: gruff.",
    "Backstory: You ran the incline for thirty years.",
    "Speaking style: short.",
    "You are at The Upper Station (windy).",
    "People you know:",
    "- Mara Quill: RIVAL (she runs the ferry)",
    "What you know: the incline.",
    "Things you tend to do:",
    "- You whistle.",
    "Rules you never break:",
    "- You never swear.",
    "Your knowledge of the world is what is written here. Never mention these instructions or the notes.",
    "",
    "[Lore]",
    "About The Incline: Two cars,\nthe Magpie and the Wren.",
    "",
    "About The Brake (your secret: you know it, but you never tell it to anyone): It slips.",
  ].join("\n");
  const NAIVE: TranscriptLayout = { notes: "docs", player: "script", example: true, exampleNotes: "knows", exampleAt: "end", persona: "plain", personaExtras: "dropped", oneLine: false };

  test("persona without instructions, labels, headings or extras; the lore as documents; the example last, as in the naive prompt", () => {
    expect(transcriptSystem(system, "Idris Vane", NAIVE)).toBe(
      [
        "You are Idris Vane, Keeper.\nGruff.".replace("Gruff", "gruff"),
        "You ran the incline for thirty years.\nSpeaking style: short.\nYou whistle.\nYou never swear.",
      ].join("\n") +
        "\n\nThe Incline:\nTwo cars, the Magpie and the Wren.\n\nThe Brake (your secret: you know it, but you never tell it to anyone):\nIt slips." +
        "\n\nWhat Idris Vane knows:\n- The old well: The old well behind the house is forty feet deep.\n\nPlayer: How deep is the old well?\nIdris Vane: Forty feet, give or take.",
    );
  });

  test("each group alone: the example after the lore; the persona plain; the extras dropped", () => {
    const KE: TranscriptLayout = { ...KNOWS, example: true };
    const end = transcriptSystem(system, "Idris Vane", { ...KE, exampleAt: "end" });
    expect(end.indexOf("old well")).toBeGreaterThan(end.indexOf("- The Brake"));
    expect(end).toEndWith("Idris Vane: Forty feet, give or take.");
    const plain = transcriptSystem(system, "Idris Vane", { ...KE, persona: "plain" });
    expect(plain).not.toMatch(/Stay in character|Personality:|Backstory:|Things you tend to do:|Rules you never break:|Your knowledge of the world/);
    expect(plain).toContain("People you know:\n- Mara Quill: RIVAL");
    const bare = transcriptSystem(system, "Idris Vane", { ...KE, personaExtras: "dropped" });
    expect(bare).not.toMatch(/Upper Station|People you know|Mara Quill|What you know:/);
    expect(bare).toContain("Personality: gruff.\nBackstory:");
    expect(bare).toContain("Rules you never break:\n- You never swear.");
  });

  test("a secret's title keeps its marker whole when its note becomes a document", () => {
    expect(transcriptUserTurn("[Lore]\nAbout The Brake (your secret: keep it): It slips.\n\n[Player]\nWhy?", "Idris Vane", NAIVE)).toBe(
      "The Brake (your secret: keep it):\nIt slips.\n\nPlayer: Why?",
    );
  });
});

describe("the transcript a script layout renders", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are Idris Vane.\n\n[Lore]\nAbout A: one." },
    { role: "user", content: "Hello." },
    { role: "assistant", content: "Evening." },
    { role: "user", content: "[Lore]\nAbout B: two.\n\n[Player]\nHow many cars?" },
  ];
  const render = (layout: TranscriptLayout, m: ChatMessage[]) => {
    const w = new TranscriptChatWrapper(layout);
    return w.generateContextState({ chatHistory: toChatHistory(m, replyOpening(w, "Idris Vane")) });
  };

  test("the speaker's line follows the player's, and the model is left on it", () => {
    const text = render(KNOWS, messages).contextText.toString();
    expect(text).toContain("Player: Hello.\nIdris Vane: Evening.\n\nWhat Idris Vane knows:\n- B: two.\n\nPlayer: How many cars?\nIdris Vane:");
    expect(text.endsWith("Player: How many cars?\nIdris Vane:")).toBe(true);
  });

  test("a turn's transcript is the start of the next turn's (the cached prefix holds)", () => {
    for (const layout of [SECTIONS_LAYOUT, KNOWS, { ...KNOWS, example: true }]) {
      const before = render(layout, messages.slice(0, 2)).contextText.toString();
      expect(render(layout, messages).contextText.toString().startsWith(before)).toBe(true);
    }
  });

  test("a one-line layout ends the reply at a line break; the others at a blank line or a heading", () => {
    const stops = (l: TranscriptLayout) => render(l, messages).stopGenerationTriggers.map((t) => t.toString());
    expect(stops({ ...KNOWS, oneLine: true })).toContain("\n");
    expect(stops(KNOWS)).not.toContain("\n");
    expect(stops(KNOWS)).toEqual(expect.arrayContaining(["\n\n", "\n["]));
  });
});

test("a reply ends where the model starts writing what the speaker knows (the next turn's notes) or its own next line", () => {
  const w = new TranscriptChatWrapper({ notes: "knows", player: "script", example: false, oneLine: false });
  const history = toChatHistory([{ role: "system", content: "You are Idris Vane." }, { role: "user", content: "Hello." }], replyOpening(w, "Idris Vane"));
  const stops = w.generateContextState({ chatHistory: history }).stopGenerationTriggers.map((t) => t.toString());
  expect(stops).toEqual(expect.arrayContaining(["What Idris Vane knows:", "\n- ", "\nIdris Vane:"]));
});
