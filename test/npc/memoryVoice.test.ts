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
    ["My name is Tamsin Orrick, I just rode in from the coast.", []],
    ["I owe you 37 dollars.", []],
    // the mind's own small talk in the third person, copied from its line: not a memory
    ["The stove's warm if you want to sit a spell.", []],
    // a first person neither said: whose it is cannot be told, so it is not kept
    ["The player gave me a horse.", []],
    ["We drank together.", []],
  ];
  for (const [input, want] of table) test(JSON.stringify(input), () => expect(voiced(input)).toEqual(want));
});
