import { describe, expect, test } from "bun:test";
import { playerStatements, withMissedStatements, withoutBorrowedSubjects } from "../../src/npc/memory/playerStatements.ts";
import { memoriesOfSummary } from "../../src/npc/memory/summariseSession.ts";
import { MAX_MEMORIES_PER_SUMMARY } from "../../src/npc/memory/types.ts";

const u = (content: string) => ({ role: "user" as const, content });
const a = (content: string) => ({ role: "assistant" as const, content });
const draft = (text: string) => ({ text, importance: 5, topics: [] as string[] });

// A tuning world's memory script (Reedmouth) as the product answered it with short replies: the kind of session
// whose summary on Qwen2.5-0.5B lost the relative's fact and made the player the warden.
const SESSION = [
  u("Good day, Reeve. My name is Edda Marlow."),
  a("Good day, Edda Marlow!"),
  u("I owe the Court a fine of four marks, and I will pay it on Fishday."),
  a("Fishday it is."),
  u("My cousin Joss is one of your wardens. Goodbye for now."),
  a("Goodbye!"),
];
const MIND = "Anselm Quayle";

describe("the player's statements about themselves", () => {
  test("first-person sentences with a name or a number, in the third person; greetings before them cut", () => {
    expect(playerStatements(MIND, SESSION)).toEqual([
      { text: "The player's name is Edda Marlow.", names: ["edda marlow"], numbers: [] },
      { text: "The player owes the Court a fine of four marks, and they will pay it on Fishday.", names: ["court", "fishday"], numbers: [4] },
      { text: "The player's cousin Joss is one of Anselm Quayle's wardens.", names: ["joss"], numbers: [] },
    ]);
  });

  test("not a statement: a question, a line without a name or number, the mind's name alone, another's subject", () => {
    const session = [
      u("Do I owe you 5 silver, Garrick?"),
      u("I'll take the room."),
      u("I like you, Garrick."),
      u("Elsie is my sister."),
      u("Hello Garrick, my name is Ada and I came from the north road."),
    ];
    expect(playerStatements("Garrick Thorne", session).map((s) => s.text)).toEqual(["The player's name is Ada and they came from the north road."]);
  });

  test("a name is a run of capitalised words; a possessive's 's and the mind's own name are no part of it", () => {
    const [s] = playerStatements(MIND, [u("My name is Bryn O'Dare and I row for Anselm Quayle's Court, with my uncle Corvin's crew.")]);
    expect(s.names).toEqual(["bryn o dare", "court", "corvin"]);
  });
});

describe("a sentence that made the player the subject of what they said of someone else", () => {
  const statements = playerStatements(MIND, SESSION);
  test("is dropped; the memory goes when nothing else is left in it", () => {
    const out = withoutBorrowedSubjects(
      [draft("The player is one of Anselm Quayle's wardens."), draft("The player's name is Edda Marlow. The player is one of Anselm Quayle's wardens.")],
      statements,
    );
    expect(out.map((d) => d.text)).toEqual(["The player's name is Edda Marlow."]);
  });

  test("the player's own statement, paraphrased or not, and a memory naming the other subject stay", () => {
    const kept = [
      "The player owes the Court a fine of four marks.",
      "The player's cousin Joss is one of Anselm Quayle's wardens.",
      "The player is a cousin of Joss, one of Anselm Quayle's wardens.",
      "The player is Edda Marlow.",
    ];
    expect(withoutBorrowedSubjects(kept.map(draft), statements).map((d) => d.text)).toEqual(kept);
  });

  test("someone else's debt is not the player's", () => {
    const s = playerStatements("Garrick Thorne", [u("My sister owes you 5 gold for the room.")]);
    expect(withoutBorrowedSubjects([draft("The player owes Garrick Thorne 5 gold for the room.")], s)).toEqual([]);
  });
});

describe("a statement no memory holds is added", () => {
  const statements = playerStatements(MIND, SESSION);
  test("only the missing one, after the summary's own", () => {
    const out = withMissedStatements([draft("The player is Edda Marlow."), draft("The player owes the Court four marks due on Fishday.")], statements);
    expect(out.map((d) => d.text)).toEqual(["The player is Edda Marlow.", "The player owes the Court four marks due on Fishday.", "The player's cousin Joss is one of Anselm Quayle's wardens."]);
  });

  test("a number held as a word or as digits counts as held", () => {
    const out = withMissedStatements([draft("The player owes four marks.")], playerStatements(MIND, [u("I owe 4 marks.")]));
    expect(out).toHaveLength(1);
  });

  test("a name of a statement with an amount does not hold it: the amount does", () => {
    const out = withMissedStatements([draft("The player is a court jester."), draft("The player's name is Edda Marlow."), draft("The player's cousin is Joss.")], statements);
    expect(out.map((d) => d.text).at(-1)).toBe("The player owes the Court a fine of four marks, and they will pay it on Fishday.");
    expect(out).toHaveLength(4);
  });

  test("never more than a summary's memories in all", () => {
    const full = Array.from({ length: MAX_MEMORIES_PER_SUMMARY }, (_, i) => draft(`The player likes pie number ${i + 10}.`));
    expect(withMissedStatements(full, statements)).toHaveLength(MAX_MEMORIES_PER_SUMMARY);
  });

  test("a memory it replaces gives it its importance and topics", () => {
    const [out] = withMissedStatements([{ text: "The player's name is Edda.", importance: 8, topics: ["name"] }], playerStatements(MIND, [u("My name is Edda Marlow.")]));
    expect(out).toEqual({ text: "The player's name is Edda Marlow.", importance: 8, topics: ["name"] });
    // two it replaces: their topics, no more than one of them had
    const two = withMissedStatements([{ text: "The player is Edda.", importance: 4, topics: ["name", "edda", "player"] }, { text: "The player's cousin is Joss.", importance: 6, topics: ["cousin", "joss"] }], playerStatements(MIND, [u("My name is Edda Marlow and my cousin Joss keeps the ferry.")]));
    expect(two).toEqual([{ text: "The player's name is Edda Marlow and their cousin Joss keeps the ferry.", importance: 6, topics: ["name", "edda", "player"] }]);
  });
});

describe("a statement is held only when the memories together hold every name and number it holds", () => {
  const TWO_NAMES = "My name is Edda Marlow and my cousin Joss keeps the ferry at Greyford.";
  const STATED = "The player's name is Edda Marlow and their cousin Joss keeps the ferry at Greyford.";
  // [what the row shows, the player's line, the summary's memories, the memories after the backfill]
  const rows: [string, string, string[], string[]][] = [
    ["held by one memory", TWO_NAMES, ["Edda Marlow is the player; Joss, her cousin, keeps the Greyford ferry."], ["Edda Marlow is the player; Joss, her cousin, keeps the Greyford ferry."]],
    ["held by two memories together", TWO_NAMES, ["The player is Edda Marlow.", "The player's cousin Joss runs the ferry at Greyford."], ["The player is Edda Marlow.", "The player's cousin Joss runs the ferry at Greyford."]],
    ["a name's words in another case and order", TWO_NAMES, ["The player gave her name as MARLOW, Edda.", "joss of greyford is the player's cousin."], ["The player gave her name as MARLOW, Edda.", "joss of greyford is the player's cousin."]],
    ["half held: the statement takes the place of the memory that says part of it", TWO_NAMES, ["The player's name is Edda."], [STATED]],
    ["half held: a memory that names the player in other words says no more", "I'm Edda Marlow, a clerk from Greyford.", ["The player's name is Edda Marlow."], ["The player is Edda Marlow, a clerk from Greyford."]],
    ["half held: a memory that says more stays", TWO_NAMES, ["The player is Edda Marlow, an eel seller."], ["The player is Edda Marlow, an eel seller.", STATED]],
    ["a name's words split over two memories do not hold it", TWO_NAMES, ["The player is Edda.", "The player knows a Marlow.", "The player's cousin Joss keeps the ferry at Greyford."], [STATED, "The player knows a Marlow."]],
    ["a number in words held in digits", "I owe the Court twelve marks.", ["The player owes the Court 12 marks."], ["The player owes the Court 12 marks."]],
    ["a number in digits held in words", "I owe the Court 12 marks.", ["The player owes the Court a dozen marks."], ["The player owes the Court a dozen marks."]],
    ["the number missing", "I owe the Court twelve marks.", ["The player owes the Court a fine."], ["The player owes the Court a fine.", "The player owes the Court twelve marks."]],
    ["the number held, a name missing", "I owe the Court twelve marks.", ["The player owes 12 marks."], ["The player owes the Court twelve marks."]],
    ["the mind's own name is not a fact", "I owe Anselm Quayle four marks.", ["The player owes four marks."], ["The player owes four marks."]],
    ["nor the mind's name in a possessive", "My cousin Joss is one of Anselm's wardens.", ["Joss is the player's cousin."], ["Joss is the player's cousin."]],
  ];
  for (const [what, line, memories, after] of rows)
    test(what, () => {
      expect(withMissedStatements(memories.map(draft), playerStatements(MIND, [u(line)])).map((d) => d.text)).toEqual(after);
    });

  test("the same statement twice is stored once", () => {
    expect(withMissedStatements([], playerStatements(MIND, [u(TWO_NAMES), u(TWO_NAMES)])).map((d) => d.text)).toEqual([STATED]);
  });
});

describe("a summary's text to memories", () => {
  // What Qwen2.5-0.5B wrote for such a session: the relative's fact turned into the player's, and the worked example's fact.
  const qwen = JSON.stringify({
    memories: [
      { text: "The player's name is Edda Marlow.", importance: 6, topics: ["name"] },
      { text: "The player owes the Court a fine of four marks, and will pay it on Fishday.", importance: 7, topics: ["fine"] },
      { text: "The player is one of your wardens.", importance: 5, topics: ["wardens"] },
      { text: "The player comes from the hill farms.", importance: 4, topics: ["origin"] },
    ],
  });

  test("every fact the player stated, in the third person, nothing taken over or copied from the example", () => {
    expect(memoriesOfSummary(qwen, MIND, SESSION, { example: true }).map((d) => d.text)).toEqual([
      "The player's name is Edda Marlow.",
      "The player owes the Court a fine of four marks, and will pay it on Fishday.",
      "The player's cousin Joss is one of Anselm Quayle's wardens.",
    ]);
  });

  test("junk from the model leaves the player's statements", () => {
    expect(memoriesOfSummary("{\"memories\":[{\"te", MIND, SESSION, { example: true }).map((d) => d.text)).toEqual(playerStatements(MIND, SESSION).map((s) => s.text));
  });

  test("a summary cut by shutdown adds nothing (the session is summarised again)", () => {
    expect(memoriesOfSummary("", MIND, SESSION, { example: true, stopped: true })).toEqual([]);
  });
});
