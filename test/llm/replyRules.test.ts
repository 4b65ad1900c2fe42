import { describe, expect, test } from "bun:test";
import { finishReasonOf, resampleEmptyReply } from "../../src/llm/replyRules.ts";

const base = { text: "", stopReason: "customStopTrigger", streamed: false, grammar: false, temperature: 0.7, aborted: false };

describe("an empty reply is sampled once more only when that is invisible and could differ", () => {
  test.each([
    ["empty, ended by one of our stop triggers, nothing streamed", base, true],
    ["the reply has words", { ...base, text: "Ale, mostly." }, false],
    ["the model ended its turn itself (EOS)", { ...base, stopReason: "eogToken" }, false],
    ["the reply ran out of tokens", { ...base, stopReason: "maxTokens" }, false],
    ["something was streamed already", { ...base, streamed: true }, false],
    ["a grammar (a memory summary)", { ...base, grammar: true }, false],
    ["greedy: another seed would repeat it", { ...base, temperature: 0 }, false],
    ["the request was aborted or timed out", { ...base, aborted: true }, false],
  ] as const)("%s", (_name, input, want) => {
    expect(resampleEmptyReply(input)).toBe(want);
  });
});

test.each([
  ["maxTokens", null, "length"],
  ["eogToken", null, "stop"],
  ["customStopTrigger", null, "stop"],
  ["abort", "timeout", "timeout"],
  ["abort", null, "abort"],
] as const)("finish reason of %s (run %s) is %s", (stop, run, want) => {
  expect(finishReasonOf(stop, run)).toBe(want);
});
