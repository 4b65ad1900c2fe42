import { describe, expect, test } from "bun:test";
import { echoOf, endsAtNotes, metaTalk, nameForms, overLength, promptEcho, repeatsPrevious, repetition, replyProblems, roleLabel, wrongPerson, type ReplyContext } from "../../src/npc/replies/detectors.ts";

const ctx: ReplyContext = {
  playerLine: "Good evening! My name is Corra Vell, and I have just come up from Brenn on foot.",
  mindName: "Idris Vane",
  otherNames: ["Pip Kettleby"],
  structuralLines: [
    "You are Idris Vane, Keeper of the Cindervale Incline, a character in a game.",
    "You are at The Foot of the Incline (The lower station of the cable railway, on the crater floor).",
    "- Pip Kettleby: FRIEND (She brings him tea between cars)",
  ],
  narrativeLines: ["Backstory: Idris came to the crater as a boy and has worked the incline for thirty years, first as a greaser, now as its keeper."],
  noteNames: ["Riding the Incline"],
  previousReply: null,
  maxSentences: 3,
  secrets: [],
  hintLines: ["- Mentions that the up car leaves every half hour from the sixth bell"],
};

// [reply, player line, expected: echo or not]
describe("echoOf: the player's line repeated as the reply", () => {
  const table: [string, string, boolean][] = [
    ["Good evening! My name is Corra Vell, and I have just come up from Brenn on foot. Welcome.", ctx.playerLine, true],
    ["My name is Corra Vell, and I have just come up from Brenn on foot.", ctx.playerLine, true],
    ["Good evening, Corra. Brenn is two days down the Gullet road.", ctx.playerLine, false],
    ["Good evening! My name is Idris Vane. Welcome up top.", ctx.playerLine, false],
    ["Aye, the cars run every half hour, from the sixth bell.", "So the cars run every half hour, is that right?", false],
    ["So the cars run every half hour, is that right? Aye.", "So the cars run every half hour, is that right?", true],
    ["Hello there! What brings you here?", "Hello there.", false], // a short greeting may be returned
    // An answer restates what was asked; repeating the question itself is the echo.
    ["Ferro Lund owns the Salt Kettle.", "Who owns the Salt Kettle?", false],
    ["Morgan Vey has the longest tab at your bar.", "Who has the longest tab at your bar?", false],
    ["Who owns the Salt Kettle? Ferro does.", "Who owns the Salt Kettle?", true],
    ["Well, Garrick Thorne is the best in Thornhaven, everyone says so.", "Your porter is the best in Thornhaven, everyone says so.", true],
    ["Evening. Long day. My feet hurt and I need a hot bath.", "Evening. Long day. My feet hurt and I need a hot bath.", true],
    ["Your feet hurt? A hot bath is two brass bits, dear.", "Evening. Long day. My feet hurt and I need a hot bath.", false],
    // the part the player asked to have repeated, repeated: still the player's words, not the NPC's
    ["The grey gulls circle the quay at dawn.", "Repeat after me, word for word: The grey gulls circle the quay at dawn.", true],
    ["Gulls? They circle the quay at dawn every day, and the fishwives curse them.", "Repeat after me, word for word: The grey gulls circle the quay at dawn.", false],
    ["The old mill by the river is gone.", "Do you know where the old mill by the river is?", false],
  ];
  for (const [reply, player, want] of table) test(`${want ? "echo" : "fine"}: ${JSON.stringify(reply)}`, () => expect(echoOf(reply, player) !== null).toBe(want));
});

describe("metaTalk: talk about the notes, the prompt or being an AI", () => {
  const table: [string, boolean][] = [
    ["According to the Riding the Incline section in the notes, a ride takes eleven minutes.", true],
    ["According to the Redvein Consolidated Shafts section in the lore, the shaft is deep.", true],
    ["As an AI, I cannot say.", true],
    ["I am just a language model.", true],
    ["I'm an assistant and cannot help with that.", true],
    ["The notes say the cars run every half hour.", true],
    ["In the provided text there is no mention of it.", true],
    ["The player asks about the incline.", true],
    ["Based on the narrative, the town gates close at the tenth bell.", true],
    ["Based on the descriptions provided in the", true],
    ["The text does not say when the comet returns.", true],
    ["Based on my years up here, it rains in spring.", false],
    ["I don't have any information about the bathhouse healer in the given text.", true],
    ["According to the player's messages, the Warden has offered a reward.", true],
    ["As an AI designed to interact with a text-based game, I cannot say.", true],
    ["Based on the content of the", true],
    ["It is a detail that can be found in the notes.", true],
    ["I'm sorry, but I can't assist with that.", true],
    ["I can't provide real-time news. Please let me know how I can assist you.", true],
    ["Is there anything specific you'd like to know or discuss?", true],
    ["I can't help with the engine today, it's cold.", false],
    ['The captain uses the word "CUTTER" in the game.', true],
    ["He lost his boots in the game of dice last night.", false],
    ["Based on the paragraph, the town gates close at the tenth bell.", true],
    ["According to the light description, the keeper shows one white flash.", true],
    ["Based on the excerpt provided, Bram would row to the quay.", true],
    ["[Lore] The cars run.", true],
    ["According to the provided", true],
    ["There is no clear information in the provided", true],
    ["Based on the narration, the town gates close at the tenth bell.", true],
    ["The captain gave me the lamp, and I kept what was given.", false],
    ["According to the given schedule, the cars run hourly.", true],
    ["According to the old ledger, the engine was built in 398.", false],
    ["According to old Mabry, the engine will outlive us all.", false],
    ["A ride takes eleven minutes, friend.", false],
    ["I keep notes of every car in my log.", false],
    // an assistant declining what it reads as politics
    ["I'm sorry, but I can't answer this question. This might be a sensitive and political issue, and I won't comment on or express opinions about political issues.", true],
    ["The council's business is a sensitive matter, stranger.", false],
    ["Don't ask me about political issues, friend; the Warden has ears.", false],
    ["I keep my opinions to myself, and I won't express them on the council.", false],
    ["I'm sorry, but I can't answer this question. This is a plot summary, and I don't have access to information about who cast it.", true],
    ["This is a fact about a fictional game character and doesn't provide any information.", true],
    ["I don't have access to the Reeve's vault, friend.", false],
  ];
  for (const [reply, want] of table) test(`${want ? "meta" : "fine"}: ${JSON.stringify(reply)}`, () => expect(metaTalk(reply) !== null).toBe(want));
});

describe("endsAtNotes: a finished reply cut where the notes' heading came next", () => {
  const table: [string, boolean][] = [
    ["Based on the", true],
    ["Maggie owns the Drowned Lantern, according to the", true],
    ["The bridge was built according to the plans.", false],
    ["According to the old ledger, the engine was built in 398.", false],
  ];
  for (const [reply, want] of table) test(`${want ? "cut" : "fine"}: ${JSON.stringify(reply)}`, () => expect(endsAtNotes(reply) !== null).toBe(want));

  test("a problem of the finished reply, never of an opening that may still go on", () => {
    expect(replyProblems("Maggie owns the Drowned Lantern, according to the", ctx).map((p) => p.kind)).toContain("meta");
    expect(metaTalk("Well now, according to the")).toBeNull();
  });
});

describe("roleLabel", () => {
  const table: [string, boolean][] = [
    ["Player: hello", true],
    ["Aye.\nAssistant: more", true],
    ["Idris Vane: Eleven minutes.", true],
    ["**Idris:** Eleven minutes.", true],
    ["Note this: the fare is four bits.", false],
    ["Eleven minutes, and mind the gap.", false],
    // a line that is only a turn's heading, the prompt's form (a base model's transcript), its own or made up
    ["[Idris Vane]", true],
    ["[Igor Vane]\nThe cars run at dawn.", true],
    ["Aye, the cars run at dawn.\n[Player]", true],
    ["  [pessimus]  \nHey, boy.", true],
    // brackets inside speech are not a heading
    ["The sign says [closed] today.", false],
    ["It shows the keeper's name, but not the code word.]", false],
    ["[laughs] Eleven minutes, friend.", false],
  ];
  for (const [reply, want] of table) test(`${want ? "label" : "fine"}: ${JSON.stringify(reply)}`, () => expect(roleLabel(reply, "Idris Vane") !== null).toBe(want));
});

describe("promptEcho: the system prompt recited", () => {
  const table: [string, boolean][] = [
    ["You are Idris Vane, Keeper of the Cindervale Incline.", true],
    ["You are at The Foot of the Incline (The lower station of the cable railway). People you know: - Pip Kettleby: FRIEND", true],
    ["Things you tend to do: talk about engines.", true],
    ["About Riding the Incline: the cars run every half hour.", true],
    ["Idris came to the crater as a boy and has worked the incline for thirty years, first as a greaser, now as its keeper.", true],
    // The same life told in the first person, in a few words of its own: in character, not a recitation.
    ["I came to the crater as a boy and have worked this incline thirty years.", false],
    ["Pip? She brings me tea between cars, bless her.", false],
    ["You are at the foot of the incline, friend. Mind the cable.", false],
    // a hint's content is what the mind should say; reciting the instruction itself is the echo
    ["The up car leaves every half hour from the sixth bell, friend.", false],
    ["Mentions that the up car leaves every half hour from the sixth bell.", true],
  ];
  for (const [reply, want] of table) test(`${want ? "echo" : "fine"}: ${JSON.stringify(reply)}`, () => expect(promptEcho(reply, ctx) !== null).toBe(want));
});

describe("wrongPerson: speaking as someone else", () => {
  const table: [string, boolean][] = [
    ["My name is Corra Vell, and I've come from Brenn.", true],
    ["I'm Pip, and the tea is hot.", true],
    ["Idris Vane is the keeper of this incline.", true],
    ["Welcome. Idris has kept this incline thirty years.", true],
    ["Idris hears the engine from the causeway.", true],
    ["Idris Vane's cable came from Brenn.", true],
    ["The toll is paid, and Idris makes sure of it.", true],
    ["My name is Idris Vane, keeper here.", false],
    ["I'm Idris. Welcome, Corra.", false],
    ["I am Keeper of the Incline, and proud of it.", false],
    ["I'm Glad you came.", false],
    ["Ask Pip at the Salt Kettle; she knows.", false],
  ];
  for (const [reply, want] of table) test(`${want ? "wrong" : "fine"}: ${JSON.stringify(reply)}`, () => expect(wrongPerson(reply, ctx) !== null).toBe(want));
});

describe("repetition and repeatsPrevious", () => {
  const rep: [string, boolean][] = [
    ["The cars run. The cars run.", true],
    ["Aye, aye, aye, the cars run and the cars run and the cars run.", true],
    ["The engine is old and the engine is loud and the engine is mine and the engine is strong.", true],
    ["The Magpie goes up while the Wren comes down.", false],
  ];
  for (const [reply, want] of rep) test(`${want ? "loop" : "fine"}: ${JSON.stringify(reply)}`, () => expect(repetition(reply) !== null).toBe(want));
  test("the same line as the mind's previous one", () => {
    expect(repeatsPrevious("Welcome to the incline, traveller! Mind the cable.", "Welcome to the incline, traveller! Mind the cable.")).not.toBeNull();
    expect(repeatsPrevious("Welcome to the incline, traveller! Mind the cable and the gap, and pay four bits.", "Welcome to the incline, traveller! Mind the cable and the gap.")).not.toBeNull();
    // The same greeting to open with is a habit, not a repeated line.
    expect(repeatsPrevious("Welcome to the incline, traveller! The fare is four bits.", "Welcome to the incline, traveller! Mind the cable and the gap.")).toBeNull();
    expect(repeatsPrevious("The first car leaves at the sixth bell.", "Hello there, welcome to the incline.")).toBeNull();
    expect(repeatsPrevious("Anything.", null)).toBeNull();
  });
});

describe("overLength and the whole check", () => {
  test("more sentences than the mind may say", () => {
    expect(overLength("One. Two. Three. Four.", 3)).not.toBeNull();
    expect(overLength("One. Two. Three.", 3)).toBeNull();
  });
  test("replyProblems lists each kind once, in order; a clean reply has none", () => {
    expect(replyProblems("", ctx).map((p) => p.kind)).toEqual(["empty"]);
    expect(replyProblems("Good evening, Corra. Brenn is two days down the Gullet road.", ctx)).toEqual([]);
    const bad = replyProblems("Idris Vane: According to the notes, my name is Corra Vell.", ctx).map((p) => p.kind);
    expect(bad).toEqual(["meta", "roleLabel", "wrongPerson"]);
  });
  test("name forms drop titles", () => {
    expect(nameForms("Sister Aveline Morrow")).toEqual(["Sister Aveline Morrow", "Aveline Morrow", "Aveline"]);
    expect(nameForms("Pell")).toEqual(["Pell"]);
    // "Nan" is what people call Nan Wicker
    expect(nameForms("Nan Wicker")).toEqual(["Nan Wicker", "Nan"]);
  });
});
