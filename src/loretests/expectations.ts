import type { TurnBehaviour } from "../behaviour/behaviourPrompt.ts";
import type { ChatMessage } from "../llm/types.ts";
import { replyProblems, type ReplyContext } from "../npc/replies/detectors.ts";
import { splitSentences } from "../npc/replies/sentences.ts";
import { leakOf, secretTerms } from "../npc/secrets/secretTerms.ts";
import type { NamedDocument } from "./resolveCases.ts";
import type { LoreTestExpect } from "./testSchema.ts";

/** A lore note of the turn's trace: which chunk reached the prompt, and where in it. */
export interface TraceNote {
  documentId: string;
  documentName: string;
  chunkIndex: number;
  /** this turn's retrieval, an earlier turn's note kept in the conversation, or the mind's shared lore */
  turn: "this" | "earlier" | "shared";
}

/** What one turn did, as the checks read it. */
export interface TurnObservation {
  reply: string;
  prompt: ChatMessage[];
  lore: TraceNote[];
  behaviour: TurnBehaviour | null;
  /** the reply guard's view of the turn (its detectors' context) */
  guard: ReplyContext;
  timeToFirstTokenMs: number;
}

export interface CheckResult {
  check: string;
  pass: boolean;
  detail: string;
}

/** Whole-word, case-insensitive: "ale" is not found in "tale", "Wend Water" is found in "wend water's". */
export function saysTerm(text: string, term: string): boolean {
  const norm = (s: string) => s.replace(/[’‘]/g, "'").normalize("NFC");
  const escaped = norm(term.trim()).replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+");
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "iu").test(norm(text));
}

/** Sentences of a document long enough that finding one verbatim in a prompt means the document is there. */
function telltaleSentences(content: string): string[] {
  return splitSentences(content).map((s) => s.trim()).filter((s) => s.length >= 24);
}

/**
 * Every expectation of one turn against what the turn did. Words are checked on the reply; knowledge on the
 * trace (the chunks that reached the prompt), never on the words; a leak on the prompt and on the reply.
 */
export function checkTurn(
  expect: LoreTestExpect | null | undefined,
  docs: { knowsFrom: Map<string, NamedDocument>; noLeakOf: Map<string, NamedDocument[]> },
  o: TurnObservation,
): CheckResult[] {
  const out: CheckResult[] = [];
  if (!expect) return out;
  const add = (check: string, pass: boolean, detail: string) => out.push({ check, pass, detail });
  if (expect.mentions?.length) {
    const said = expect.mentions.filter((t) => saysTerm(o.reply, t));
    add("mentions", said.length > 0, said.length ? `says "${said[0]}"` : `says none of ${expect.mentions.map((t) => `"${t}"`).join(", ")}`);
  }
  if (expect.mentionsAll?.length) {
    const missing = expect.mentionsAll.filter((t) => !saysTerm(o.reply, t));
    add("mentionsAll", missing.length === 0, missing.length ? `does not say ${missing.map((t) => `"${t}"`).join(", ")}` : "says all of them");
  }
  if (expect.never?.length) {
    const said = expect.never.filter((t) => saysTerm(o.reply, t));
    add("never", said.length === 0, said.length ? `says ${said.map((t) => `"${t}"`).join(", ")}` : "says none of them");
  }
  for (const [ref, d] of docs.knowsFrom) {
    const notes = o.lore.filter((l) => l.documentId === d.id);
    add(`knowsFrom ${ref}`, notes.length > 0, notes.length ? `chunk ${notes[0].chunkIndex} of "${d.name}" reached the prompt (${notes[0].turn})` : `no chunk of "${d.name}" reached the prompt`);
  }
  const promptText = o.prompt.map((m) => m.content).join("\n");
  for (const [ref, list] of docs.noLeakOf) add(`noLeakOf ${ref}`, ...leakVerdict(list, o, promptText));
  if (expect.action != null) {
    if (!o.behaviour) add("action", false, "the mind has no behaviour (no actions to check)");
    else {
      const want = expect.action.toLowerCase();
      const took = o.behaviour.actions.map((a) => a.id);
      const pass = want === "none" ? took.length === 0 : o.behaviour.actions.some((a) => a.id.toLowerCase() === want || a.name.toLowerCase() === want);
      add("action", pass, took.length ? `took ${took.join(", ")}` : "took no action");
    }
  }
  if (expect.emotion != null) {
    const e = o.behaviour?.emotion.name;
    add("emotion", !!e && e.toLowerCase() === expect.emotion.toLowerCase(), e ? `showed ${e}` : "the mind has no behaviour (no emotion to check)");
  }
  if (expect.trust) {
    const t = o.behaviour?.trust?.value;
    const { min, max } = expect.trust;
    const pass = t !== undefined && (min == null || t >= min) && (max == null || t <= max);
    add("trust", pass, t === undefined ? "no trust value (the mind has no behaviour with trust)" : `trust ${t}`);
  }
  if (expect.maxSentences != null) {
    const n = splitSentences(o.reply).length;
    add("maxSentences", n <= expect.maxSentences, `${n} sentence${n === 1 ? "" : "s"}`);
  }
  if (expect.inCharacter) {
    const problems = replyProblems(o.reply, o.guard);
    add("inCharacter", problems.length === 0, problems.length ? problems.map((p) => `${p.kind}: ${p.detail}`).join("; ") : "no problem found");
  }
  if (expect.maxFirstTokenMs != null) {
    add("maxFirstTokenMs", o.timeToFirstTokenMs <= expect.maxFirstTokenMs, `first token after ${Math.round(o.timeToFirstTokenMs)} ms`);
  }
  return out;
}

/**
 * The scoping judge, on the prompt and on the reply: none of the documents' chunks in the trace and none of
 * their sentences in the prompt's text (what the scoping tests assert), and a reply that tells none of them
 * by the secret judge's rule (src/npc/secrets/secretTerms.ts: two words only the document has, or one of its
 * names; words the prompt or the player's line hold do not count, the mind may say those).
 */
function leakVerdict(list: NamedDocument[], o: TurnObservation, promptText: string): [boolean, string] {
  for (const d of list) {
    const note = o.lore.find((l) => l.documentId === d.id);
    if (note) return [false, `chunk ${note.chunkIndex} of "${d.name}" reached the prompt (${note.turn})`];
    const sentence = telltaleSentences(d.content).find((s) => promptText.includes(s));
    if (sentence) return [false, `the prompt holds "${sentence.slice(0, 60)}" from "${d.name}"`];
  }
  const known = o.prompt.map((m) => m.content);
  const leak = leakOf(o.reply, list.map((d) => secretTerms(d.name, d.content, known)));
  if (leak) return [false, `the reply tells ${leak}`];
  return [true, `nothing of ${list.length === 1 ? `"${list[0].name}"` : `${list.length} documents`} in the prompt or the reply`];
}
