import type { AppContext } from "../../core/context.ts";
import type { MindProfile } from "../mindProfile.ts";
import { loreNote } from "./renderTurn.ts";
import { renderSharedLore, type SharedNote } from "../sharedLore/sharedLore.ts";
import { generationContext, MIN_REPLY_TOKENS, staticBudget, STATIC_SHARE, TEMPLATE_SLACK, tokenCounter } from "../tokenBudget.ts";
import { keptSecretsFor, notesRead, type KeptSecrets } from "../secrets/smallestChatModels.ts";
import { KEEP_ALL, personaParts, systemPromptLines, type PersonaKeep, type PersonaParts } from "./systemPrompt.ts";

/** Something the static prompt left out to fit the context (the admin preview shows the list). */
export interface DroppedPart {
  part: "sharedLore" | "relationships" | "hints" | "backstory" | "knowledgeDescription" | "location" | "speakingStyle";
  /** items left out (chunks, relationships, hints; 1 for a single field) */
  removed: number;
  of: number;
  /** the backstory went in as its summary instead */
  replacedBy?: "summary";
}

export interface StaticFit {
  /** the system message: the mind's system text, then the shared lore it kept */
  text: string;
  /** its tokens by the counter it was fitted with */
  tokens: number;
  /** the shared lore it carries (a prefix of the selection; with kept secrets left out, those too: they take no room) */
  shared: SharedNote[];
  /** the reply cap this context leaves (the mind's, or less when its core alone is large) */
  replyCap: number;
  /** what was left out, in the order it went */
  dropped: DroppedPart[];
}

export interface FitOptions {
  contextSize: number;
  /** the mind's reply cap (responseConfig.maxTokens within the server's maxReplyTokens) */
  replyCap: number;
  /** the least a reply may be cut to */
  minReply: number;
  count: (text: string) => number;
  /** the model's prompt leaves the kept secrets' notes out (the smallest chat models, smallestChatModels.ts) */
  keptSecrets?: KeptSecrets;
}

interface State {
  keep: PersonaKeep;
  lore: number;
}

/**
 * The mind's static prompt fitted to a context: whole when it takes at most its share of the prompt
 * budget (STATIC_SHARE; the rest is the turn's: the player's line, its lore, the conversation), else
 * shrunk in a fixed order — the shared lore's chunks from the last, then relationships and hints from
 * the last, a long backstory to its summary, the knowledge description, the location, the backstory,
 * the speaking style — until it fits. The core (identity, personality, restrictions, the rules line)
 * is never cut: when it alone is over the share, the reply cap gives way instead (to `minReply`) and
 * the turn decides whether the whole still fits.
 *
 * A pure function of the mind, its shared-lore selection, the context and the counter: every player of
 * a mind on a backend of a given context gets the same text, so its KV prefix is computed once.
 */
export function fitStaticPrompt(mind: MindProfile, shared: SharedNote[], opts: FitOptions): StaticFit {
  const read = notesRead(shared, opts.keptSecrets ?? "read");
  if (read.length === shared.length) return fitRead(mind, shared, opts);
  // The notes left out are still the mind's shared lore (the reply guard and the preview's trace read them).
  const fit = fitRead(mind, read, opts);
  const carried = new Set(fit.shared);
  const readable = new Set(read);
  return { ...fit, shared: shared.filter((n) => carried.has(n) || !readable.has(n)) };
}

function fitRead(mind: MindProfile, shared: SharedNote[], opts: FitOptions): StaticFit {
  const parts = personaParts(mind);
  const cost = costModel(parts, shared, opts.count);
  const budget = staticBudget(opts.contextSize, opts.replyCap);
  let last: State | null = null;
  for (const s of states(parts, shared.length)) {
    last = s;
    // Counted part by part first (cheap); the rendered text's own count decides.
    if (cost(s) > budget) continue;
    const text = render(parts, shared, s);
    const tokens = opts.count(text);
    if (tokens <= budget) return { text, tokens, shared: shared.slice(0, s.lore), replyCap: opts.replyCap, dropped: dropped(parts, shared.length, s) };
  }
  const core = last!;
  const text = render(parts, shared, core);
  const tokens = opts.count(text);
  return { text, tokens, shared: [], replyCap: replyFor(tokens, opts), dropped: dropped(parts, shared.length, core) };
}

/** The largest reply cap (within [minReply, replyCap]) whose static share still holds `tokens`. */
function replyFor(tokens: number, opts: FitOptions): number {
  let r = Math.floor(opts.contextSize - TEMPLATE_SLACK - tokens / STATIC_SHARE);
  while (r > opts.minReply && staticBudget(opts.contextSize, r) < tokens) r--;
  return Math.max(Math.min(opts.minReply, opts.replyCap), Math.min(opts.replyCap, r));
}

/** The states from the whole prompt to its core, each leaving out one more item (in the order of fitStaticPrompt). */
function* states(p: PersonaParts, loreCount: number): Generator<State> {
  const keep: PersonaKeep = { ...KEEP_ALL, relationships: p.relationships.length, hints: p.hints.length };
  for (let k = loreCount; k >= 0; k--) yield { keep: { ...keep }, lore: k };
  for (keep.relationships--; keep.relationships >= 0; keep.relationships--) yield { keep: { ...keep }, lore: 0 };
  keep.relationships = 0;
  for (keep.hints--; keep.hints >= 0; keep.hints--) yield { keep: { ...keep }, lore: 0 };
  keep.hints = 0;
  if (p.backstorySummary) {
    keep.backstory = "summary";
    yield { keep: { ...keep }, lore: 0 };
  }
  for (const field of ["knowledgeDescription", "location", "backstory", "speakingStyle"] as const) {
    if (p[field] === null) continue;
    if (field === "backstory") keep.backstory = "none";
    else keep[field] = false;
    yield { keep: { ...keep }, lore: 0 };
  }
}

function render(p: PersonaParts, shared: SharedNote[], s: State): string {
  const system = systemPromptLines(p, s.keep).join("\n");
  const lore = renderSharedLore(shared.slice(0, s.lore));
  return lore ? `${system}\n\n${lore}` : system;
}

/** A state's tokens as the sum of its lines' and notes' counts (a newline each): O(1) a state after one count per item. */
function costModel(p: PersonaParts, shared: SharedNote[], count: (text: string) => number): (s: State) => number {
  const line = (text: string | null) => (text === null ? 0 : count(text) + 1);
  const prefix = (items: string[], extra = 0) => {
    const sums = [0];
    for (const item of items) sums.push(sums.at(-1)! + line(item) + extra);
    return sums;
  };
  const rel = prefix(p.relationships);
  const hints = prefix(p.hints);
  const lore = prefix(shared.map(loreNote), 1); // notes are set apart by a blank line
  const relHeader = line("People you know:");
  const hintHeader = line("Things you tend to do:");
  const loreHeader = line("[Lore]") + 1;
  const core =
    line(p.identity) + line(p.personality) + (p.restrictions.length ? line("Rules you never break:") + prefix(p.restrictions).at(-1)! : 0) + line(p.rules) + line(p.behaviour);
  const optional = { knowledgeDescription: line(p.knowledgeDescription), location: line(p.location), speakingStyle: line(p.speakingStyle) };
  const backstory = { full: line(p.backstory), summary: line(p.backstorySummary ?? p.backstory), none: 0 };
  return (s) => {
    const r = Math.min(s.keep.relationships, p.relationships.length);
    const h = Math.min(s.keep.hints, p.hints.length);
    let n = core + backstory[s.keep.backstory];
    if (r > 0) n += relHeader + rel[r];
    if (h > 0) n += hintHeader + hints[h];
    if (s.lore > 0) n += loreHeader + lore[s.lore];
    for (const f of ["knowledgeDescription", "location", "speakingStyle"] as const) if (s.keep[f]) n += optional[f];
    return n;
  };
}

function dropped(p: PersonaParts, loreCount: number, s: State): DroppedPart[] {
  const out: DroppedPart[] = [];
  const list = (part: "sharedLore" | "relationships" | "hints", of: number, kept: number) => {
    if (kept < of) out.push({ part, removed: of - kept, of });
  };
  list("sharedLore", loreCount, s.lore);
  list("relationships", p.relationships.length, Math.min(s.keep.relationships, p.relationships.length));
  list("hints", p.hints.length, Math.min(s.keep.hints, p.hints.length));
  if (p.backstory !== null && s.keep.backstory === "summary") out.push({ part: "backstory", removed: 1, of: 1, replacedBy: "summary" });
  if (p.backstory !== null && s.keep.backstory === "none") out.push({ part: "backstory", removed: 1, of: 1 });
  for (const f of ["knowledgeDescription", "location", "speakingStyle"] as const) if (p[f] !== null && !s.keep[f]) out.push({ part: f, removed: 1, of: 1 });
  return out;
}

/** Every text the fit counts, so a remote pool can count them by its server's tokenizer first (exact and the same each time). */
export function staticPromptPieces(mind: MindProfile, shared: SharedNote[], secrets: KeptSecrets = "read"): string[] {
  const p = personaParts(mind);
  const single = [p.identity, p.personality, p.backstory, p.backstorySummary, p.speakingStyle, p.location, p.knowledgeDescription, p.rules, p.behaviour];
  return [
    ...single.filter((x): x is string => x !== null),
    ...p.relationships, ...p.hints, ...p.restrictions,
    "People you know:", "Things you tend to do:", "Rules you never break:", "[Lore]",
    ...notesRead(shared, secrets).map(loreNote),
  ];
}

type FitCtx = Pick<AppContext, "config" | "llm" | "generation">;

/** The fit's inputs for a mind on this server's generation backend (its context, the mind's reply cap). */
export function fitOptions(ctx: FitCtx, mind: MindProfile): FitOptions {
  const replyCap = Math.max(1, Math.min(mind.responseConfig.maxTokens, ctx.config.maxReplyTokens));
  return { contextSize: generationContext(ctx), replyCap, minReply: Math.min(replyCap, MIN_REPLY_TOKENS), count: tokenCounter(ctx), keptSecrets: keptSecretsFor(ctx) };
}

/** The mind's static prompt as its turns send it (counted locally: what the mind warmer evaluates ahead). */
export function fitMindPrompt(ctx: FitCtx, mind: MindProfile, shared: SharedNote[]): StaticFit {
  return fitStaticPrompt(mind, shared, fitOptions(ctx, mind));
}

/**
 * The same for a turn. With a remote pool every text the fit counts is first counted by a server's
 * tokenizer (cached), then each rendering it weighed, until a fit used exact counts only: the choice
 * then does not move with the pool's running estimate, and is the same for every player of the mind
 * (and every Lorehold process in front of the same servers).
 */
export async function fitMindPromptForTurn(ctx: FitCtx, mind: MindProfile, shared: SharedNote[], opts = fitOptions(ctx, mind), background = false): Promise<StaticFit> {
  const gen = ctx.generation;
  if (!gen || gen.mode === "local") return fitStaticPrompt(mind, shared, opts);
  const counted = new Set(staticPromptPieces(mind, shared, opts.keptSecrets));
  await gen.prepareCounts([...counted], { background });
  for (let round = 0; ; round++) {
    const fresh: string[] = [];
    const count = (text: string) => {
      if (!counted.has(text)) fresh.push(text);
      return opts.count(text);
    };
    const fit = fitStaticPrompt(mind, shared, { ...opts, count });
    // (no tokenizer reachable: the estimate's fit, conservative)
    if (fresh.length === 0 || round === 3) return fit;
    for (const text of fresh) counted.add(text);
    await gen.prepareCounts(fresh, { background });
  }
}
