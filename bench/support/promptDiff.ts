/**
 * The product's prompt and the naive baseline's for the same question, side by side, as a model without a chat
 * template reads them (bench/transcriptLayouts.ts `--diff`): how long, how many notes, whether the answer's fact is
 * in the prompt at all and how far from the end, what comes between it and the question, the persona's lines.
 */
import type { ChatWrapper, LlamaModel } from "node-llama-cpp";
import { writeFileSync } from "node:fs";
import { toChatHistory } from "../../src/llm/toChatHistory.ts";
import { replyOpening } from "../../src/llm/transcriptChatWrapper.ts";
import type { GenerateRequest } from "../../src/llm/types.ts";

interface DiffCase { part: string; mind: string; text: string; fact?: RegExp; req: GenerateRequest; naive: GenerateRequest }

/** What one prompt looks like from the model's side. */
function anatomy(wrapper: ChatWrapper, model: LlamaModel, req: GenerateRequest, fact: RegExp | undefined) {
  const text = wrapper.generateContextState({ chatHistory: toChatHistory(req.messages, replyOpening(wrapper, req.speaker)) }).contextText.toString();
  const tokens = model.tokenize(text, true).length;
  // The example exchange is the same in every prompt and holds no world's fact; its one `- ` line is not a note.
  const example = text.includes("Forty feet, give or take.") ? 1 : 0;
  const all = fact ? [...text.matchAll(new RegExp(fact.source, fact.flags.includes("g") ? fact.flags : fact.flags + "g"))] : [];
  const last = all.at(-1);
  const fromEnd = last ? text.length - (last.index ?? 0) : null;
  const notes = (text.match(/^- /gm) ?? []).length - example;
  const persona = req.messages[0].content.split("\n\n")[0];
  return { text, tokens, factIn: all.length, factCharsFromEnd: fromEnd, notes, persona };
}

export function promptDiff(cases: DiffCase[], wrapper: ChatWrapper, model: LlamaModel, file: string): void {
  const rows = cases
    .filter((c) => c.part === "grounding")
    .map((c) => ({ mind: c.mind, question: c.text, lorehold: anatomy(wrapper, model, c.req, c.fact), naive: anatomy(wrapper, model, c.naive, c.fact) }));
  console.log("| mind | question | tokens L / N | notes L / N | fact in prompt L / N | fact's distance from the end, chars L / N |");
  console.log("|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(`| ${r.mind} | ${r.question} | ${r.lorehold.tokens} / ${r.naive.tokens} | ${r.lorehold.notes} / ${r.naive.notes} | ${r.lorehold.factIn} / ${r.naive.factIn} | ${r.lorehold.factCharsFromEnd ?? "–"} / ${r.naive.factCharsFromEnd ?? "–"} |`);
  const first = rows[0];
  if (first) console.log(`\npersona, Lorehold: ${JSON.stringify(first.lorehold.persona.slice(0, 400))}\npersona, naive:    ${JSON.stringify(first.naive.persona.slice(0, 400))}`);
  writeFileSync(file, JSON.stringify(rows, null, 2));
  console.error(`both prompts of every question written to ${file}`);
}
