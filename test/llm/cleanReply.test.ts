import { describe, expect, test } from "bun:test";
import { cleanReply } from "../../src/llm/cleanReply.ts";

describe("cleanReply", () => {
  const cases: [string, string][] = [
    ["  Well met, traveler.  \n", "Well met, traveler."],
    ["Aye.<|im_end|>\n<|im_start|>user\nwhat?", "Aye."],
    ["Go north.<|im_start|>assistant\nAnd more", "Go north."],
    ["Hm.<|eot_id|><|start_header_id|>user<|end_header_id|>", "Hm."],
    ["<s>Begone.</s>", "Begone."],
    ["Fine.<end_of_turn>\n<start_of_turn>user", "Fine."],
    ["No markers here", "No markers here"],
    ["<|im_end|>", ""],
    // prompt imitation by small real models (SmolLM2, Gemma 3 270M base)
    ["Welcome, friend!\n\n[Player]\nWhat are you doing?", "Welcome, friend!"],
    ["Three pennies.\n[Lore]\n(Wend Docks) more", "Three pennies."],
    ["Bless you, child.\n\n[Now]\nRules you never break:\n- more", "Bless you, child."],
    ["Aye, the porter.\nPlayer: and the ale?\nGarrick: thin.", "Aye, the porter."],
    ["Hm.\n  User: hello", "Hm."],
    ["The player: a stranger, it seems.", "The player: a stranger, it seems."],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => expect(cleanReply(input)).toBe(expected));
  }
});
