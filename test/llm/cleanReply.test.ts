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
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => expect(cleanReply(input)).toBe(expected));
  }
});
