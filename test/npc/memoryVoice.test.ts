import { describe, expect, test } from "bun:test";
import { inMindsVoice } from "../../src/npc/memory/memoryVoice.ts";

// The session: a player who owes the saloon keeper, and the keeper's small talk.
const SESSION = [
  { role: "user" as const, content: "Evening again, Jory. I owe you 37 dollars for the whiskey I drank on credit last month." },
  { role: "assistant" as const, content: "I haven't forgotten, partner. The stove's warm if you want to sit a spell." },
  { role: "user" as const, content: "My name is Tamsin Orrick, I just rode in from the coast." },
  { role: "assistant" as const, content: "Well, I'm off to bed. Goodnight, Tamsin." },
];
const draft = (text: string) => ({ text, importance: 5, topics: [] });
const voiced = (text: string) => inMindsVoice([draft(text)], "Jory Tallow", SESSION).map((d) => d.text);

describe("memories in the mind's voice", () => {
  const table: [string, string[]][] = [
    // third person about the player: kept as written
    ["The player's name is Tamsin Orrick.", ["The player's name is Tamsin Orrick."]],
    ["The player rode in from the coast.", ["The player rode in from the coast."]],
    // the player's first person copied into a memory: put in the third person, "you" is the mind
    [
      "The player owes you 37 dollars for the whiskey I drank on credit last month. I haven't forgotten.",
      ["The player owes Jory Tallow 37 dollars for the whiskey they drank on credit last month."],
    ],
    ["The player said my name is Tamsin Orrick.", ["The player said their name is Tamsin Orrick."]],
    // a line of the conversation, the player's or the mind's: not a memory
    ["Well, I'm off to bed. Goodnight, Tamsin.", []],
    // the player's own line copied in their first person: it opens with the player instead
    ["My name is Tamsin Orrick, I just rode in from the coast.", ["The player's name is Tamsin Orrick, they just rode in from the coast."]],
    ["I owe you 37 dollars.", ["The player owes Jory Tallow 37 dollars."]],
    // the mind's own small talk in the third person, copied from its line: not a memory
    ["The stove's warm if you want to sit a spell.", []],
    // a first person neither said: whose it is cannot be told, so it is not kept
    ["The player gave me a horse.", []],
    ["We drank together.", []],
  ];
  for (const [input, want] of table) test(JSON.stringify(input), () => expect(voiced(input)).toEqual(want));

  test("the mind repeating the player's fact leaves it the player's", () => {
    const session = [
      { role: "user" as const, content: "I owe the Watch a fine of seven crowns, and I will pay it on Moonday." },
      { role: "assistant" as const, content: "Sorry, but it seems like you've missed paying the Watch a fine of seven crowns." },
      { role: "user" as const, content: "My brother Emrys is one of your watchmen. Goodbye for now." },
    ];
    const out = inMindsVoice(
      [draft("The player owes the Watch a fine of seven crowns, and I will pay it on Moonday."), draft("My brother Emrys is one of your watchmen. Goodbye for now.")],
      "Tibor Haska",
      session,
    ).map((d) => d.text);
    expect(out).toEqual(["The player owes the Watch a fine of seven crowns, and they will pay it on Moonday.", "The player's brother Emrys is one of Tibor Haska's watchmen."]);
  });
});
