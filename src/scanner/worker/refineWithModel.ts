import type { TextModel } from "../../generation/types.ts";
import type { ChatMessage } from "../../llm/types.ts";
import type { Prices } from "../../config/config.ts";
import type { Db } from "../../db/openDatabase.ts";
import type { ProjectVocabulary } from "../extract/index.ts";
import { tokenCostMicro } from "../settlement.ts";
import { extractionsToRefine, refineExtraction } from "../scanExtractionStore.ts";

/** Only the strongest candidates are refined: a cheap, bounded pass (the heuristics already did the rest). */
export const MAX_REFINED = 12;
const MAX_COMPLETION_TOKENS = 96;
const MAX_TEXT_CHARS = 1_500;
const MAX_CONTEXT_CHARS = 1_000;
const TIMEOUT_MS = 30_000;

export interface RefineUsage {
  refined: number;
  promptTokens: number;
  completionTokens: number;
  tokenMicro: number;
  /** model cost per extension of the refined extraction's first source file */
  microByExtension: Record<string, number>;
}

function schemaFor(vocab: ProjectVocabulary): object {
  const properties: Record<string, object> = { title: { type: "string", maxLength: 120 } };
  if (vocab.tags.length) properties.tags = { type: "array", maxItems: 5, items: { enum: vocab.tags } };
  properties.location = { enum: [...vocab.locations, "none"] };
  return { type: "object", properties, required: Object.keys(properties) };
}

function prompt(vocab: ProjectVocabulary, userContext: string | null, e: { title: string; content: string; source_files: string }, textChars: number): ChatMessage[] {
  const system = [
    "You tidy candidate lore extracted from a game's files before it enters the game's lore database.",
    "Give a short descriptive title (at most 8 words), the tags that apply (only from the list) and the location the text is about (or \"none\").",
    userContext ? `The studio says about these files: ${userContext.slice(0, MAX_CONTEXT_CHARS)}` : "",
  ].filter(Boolean).join(" ");
  const user = [
    `Tags: ${vocab.tags.join(", ") || "(none)"}`,
    `Locations: ${vocab.locations.join(", ") || "(none)"}`,
    `Source: ${(JSON.parse(e.source_files) as string[])[0] ?? ""}`,
    `Current title: ${e.title}`,
    `Text:\n${e.content.slice(0, textChars)}`,
    "",
    "As JSON:",
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

function parse(text: string): { title?: unknown; tags?: unknown; location?: unknown } | null {
  try {
    const v = JSON.parse(text);
    return typeof v === "object" && v !== null ? v : null;
  } catch {
    return null;
  }
}

/**
 * With a chat model loaded, refines the job's strongest extractions (title,
 * tags, location) under a JSON grammar, using the studio's userContext. Tags
 * and locations can only be the project's own (grammar enums, checked again
 * here); model tags are added to the heuristic ones; "none" keeps the
 * heuristic location. Stops before a generation could spend more than
 * `budgetMicro` (what is left of the reservation after the bytes), so the
 * job never costs more than was reserved. Junk or cut-off output changes nothing.
 */
export async function refineWithModel(
  llm: TextModel,
  db: Db,
  job: { id: string; user_context: string | null },
  vocab: ProjectVocabulary,
  prices: Prices,
  budgetMicro: number,
  signal?: AbortSignal,
): Promise<RefineUsage> {
  const usage: RefineUsage = { refined: 0, promptTokens: 0, completionTokens: 0, tokenMicro: 0, microByExtension: {} };
  const rows = extractionsToRefine(db, job.id, MAX_REFINED);
  const tagSet = new Set(vocab.tags);
  const locSet = new Set(vocab.locations);
  const tagOrder = new Map(vocab.tags.map((t, i) => [t, i]));
  const jsonSchema = schemaFor(vocab);
  for (const e of rows) {
    if (signal?.aborted) break;
    let chars = MAX_TEXT_CHARS;
    let messages = prompt(vocab, job.user_context, e, chars);
    let promptTokens = llm.countChatTokens(messages);
    while (promptTokens + MAX_COMPLETION_TOKENS > llm.contextSize && chars > 200) {
      chars = Math.floor(chars / 2);
      messages = prompt(vocab, job.user_context, e, chars);
      promptTokens = llm.countChatTokens(messages);
    }
    if (promptTokens + MAX_COMPLETION_TOKENS > llm.contextSize) continue;
    const bound = tokenCostMicro(prices, promptTokens, MAX_COMPLETION_TOKENS);
    if (usage.tokenMicro + bound > budgetMicro) break;
    const r = await llm.generate({
      conversationKey: `scan-refine:${job.id}`,
      messages,
      maxTokens: MAX_COMPLETION_TOKENS,
      temperature: 0.2,
      jsonSchema,
      signal,
      timeoutMs: TIMEOUT_MS,
    });
    const cost = tokenCostMicro(prices, r.promptTokens, r.completionTokens);
    usage.promptTokens += r.promptTokens;
    usage.completionTokens += r.completionTokens;
    usage.tokenMicro += cost;
    const first = (JSON.parse(e.source_files) as string[])[0] ?? "";
    const ext = first.slice(first.lastIndexOf(".")).toLowerCase();
    usage.microByExtension[ext] = (usage.microByExtension[ext] ?? 0) + cost;
    const out = parse(r.text);
    if (!out) continue;
    const title = typeof out.title === "string" ? out.title.replace(/\s+/g, " ").trim() : "";
    const modelTags = Array.isArray(out.tags) ? out.tags.filter((t): t is string => typeof t === "string" && tagSet.has(t)) : [];
    const tags = [...new Set([...(JSON.parse(e.tags) as string[]), ...modelTags])].sort((a, b) => tagOrder.get(a)! - tagOrder.get(b)!);
    const location = typeof out.location === "string" && locSet.has(out.location) ? out.location : e.location;
    // A title needs a letter or digit to replace the heuristic one.
    refineExtraction(db, e.id, { title: /[\p{L}\p{N}]/u.test(title) ? title.slice(0, 200) : e.title, tags, location });
    usage.refined++;
  }
  return usage;
}
