/**
 * How a player's turn reads in the transcript of a model without a chat template (transcriptChatWrapper.ts): the
 * server's sections (`[Lore]`, `[Player]`, …, src/npc/prompt/renderTurn.ts) re-laid as a script for a base model.
 * Only models without a template see this; a chat template gets the sections as the server wrote them.
 */

/** The choices measured for a base model (bench/transcriptLayouts.ts); `TRANSCRIPT_LAYOUT` is the one in use. */
export interface TranscriptLayout {
  /**
   * The turn's lore notes: "sections" as the server wrote them (`[Lore]` then `About X: …` paragraphs); "knows" as a
   * `What <name> knows:` list just before the player's line, one line per note; "docs" as the naive baseline pastes
   * documents, each note a paragraph under its title (`Title:` then its text).
   */
  notes: "sections" | "knows" | "docs";
  /** The player's line: "section" as the server wrote it (`[Player]` and the line); "script" as `Player: <line>`. */
  player: "section" | "script";
  /** A turn's notes kept, the best ones (the server sends the best last); all when absent. A mind's shared lore is never cut. */
  maxNotes?: number;
  /** A generic exchange after the system text showing the speaker answering from what it knows (never a world's facts). */
  example: boolean;
  /**
   * The persona's instructions to a chat model ("a character in a game. Stay in character …", "Your knowledge of the
   * world is … Never mention these instructions or the notes."): "kept" as the server wrote them, or "dropped" (a base
   * model follows no instructions; it reads them as more of the document it continues).
   */
  instructions?: "kept" | "dropped";
  /** Which example: "well" (one exchange), "two" (two notes, two exchanges), "unknown" (the second question not in the notes, not answered). */
  exampleKind?: "well" | "two" | "unknown";
  /** Where the example goes: after the persona ("persona", once per conversation) or in each turn just before the player's line ("turn"). */
  exampleAt?: "persona" | "turn";
  /** The reply is one line: it ends at the first line break (a script gives each speaker one line). */
  oneLine: boolean;
}

export const SECTIONS_LAYOUT: TranscriptLayout = { notes: "sections", player: "section", example: false, oneLine: false };

/**
 * In use: the notes as what the speaker knows, the player's line as a script line, the example exchange. Chosen on
 * the tuning worlds, Gemma 3 270M, seeds 1–3 (BENCHMARKS.md "The smallest models (second round)").
 */
export const TRANSCRIPT_LAYOUT: TranscriptLayout = { notes: "knows", player: "script", example: true, oneLine: false };

/** The heading of a section the server writes: a bracketed line of its own. */
const HEADING = /^\[([^\]\n]+)\]$/;

/** A turn's text cut into its sections (`[Lore]`, `[Player]` …); text before the first heading has the heading "". */
export function turnSections(text: string): { heading: string; body: string }[] {
  const out: { heading: string; body: string }[] = [];
  let current: { heading: string; lines: string[] } = { heading: "", lines: [] };
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    // A heading opens a section at the start of the text or after a blank line (how renderTurn.ts joins them).
    const m = HEADING.exec(line);
    if (m && (i === 0 || lines[i - 1] === "")) {
      if (current.heading !== "" || current.lines.join("").trim() !== "") out.push({ heading: current.heading, body: current.lines.join("\n").trim() });
      current = { heading: m[1], lines: [] };
    } else current.lines.push(line);
  });
  if (current.heading !== "" || current.lines.join("").trim() !== "") out.push({ heading: current.heading, body: current.lines.join("\n").trim() });
  return out;
}

/** The notes of a `[Lore]` section, one string each without its `About ` (in the order sent: the best last). */
export function loreNotes(body: string): string[] {
  return body
    .split(/\n\n(?=About )/)
    .map((n) => n.replace(/^About /, "").replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

/** The notes re-laid as `layout` says (undefined: none to show). */
function notesPart(notes: string[], speaker: string, layout: TranscriptLayout, max: number | null = layout.maxNotes ?? null): string | undefined {
  const kept = max === null ? notes : notes.slice(Math.max(0, notes.length - max));
  if (!kept.length) return undefined;
  if (layout.notes === "docs") return kept.map(asDocument).join("\n\n");
  return layout.notes === "knows" ? `What ${speaker} knows:\n${kept.map((n) => `- ${n}`).join("\n")}` : `[Lore]\n${kept.map((n) => `About ${n}`).join("\n\n")}`;
}

/** A note (`Title: text`) as a pasted document: its title on a line of its own. */
function asDocument(note: string): string {
  const i = note.indexOf(": ");
  return i > 0 ? `${note.slice(0, i)}:\n${note.slice(i + 2)}` : note;
}

const unchanged = (l: TranscriptLayout) => l.notes === "sections" && l.player === "section" && l.maxNotes === undefined && !l.example;

/**
 * A player's turn laid out for `speaker` (undefined: a generation that names no speaker; the text is left as sent).
 * `text` is the turn as the server wrote it, without the opening label that follows it: sections (`[Lore]`,
 * `[Player]` …), or the player's bare line when the turn carries no notes.
 */
export function transcriptUserTurn(text: string, speaker: string | undefined, layout: TranscriptLayout): string {
  if (!speaker || unchanged(layout)) return text;
  const sections = turnSections(text);
  const bare = sections.length === 1 && sections[0].heading === "";
  if (!bare && !sections.some((s) => s.heading === "Player")) return text;
  const parts: string[] = [];
  let notes: string[] = [];
  let player = bare ? text.trim() : "";
  for (const s of bare ? [] : sections) {
    if (s.heading === "Lore") notes = loreNotes(s.body);
    else if (s.heading === "Player") player = s.body;
    else parts.push(s.heading ? `[${s.heading}]\n${s.body}` : s.body);
  }
  const shown = notesPart(notes, speaker, layout);
  if (shown) parts.push(shown);
  if (layout.example && layout.exampleAt === "turn") parts.push(exampleExchange(speaker, layout));
  parts.push(layout.player === "script" ? `Player: ${player.replace(/\s*\n\s*/g, " ")}` : `[Player]\n${player}`);
  return parts.join("\n\n");
}

/**
 * The system text laid out for `speaker`: its `[Lore]` section (a mind's shared lore, always in its prompt) as the
 * layout shows notes, and the example exchange, when the layout has one, after the persona (before any notes).
 */
export function transcriptSystem(text: string, speaker: string | undefined, layout: TranscriptLayout): string {
  if (!speaker || unchanged(layout)) return text;
  const sections = turnSections(text);
  const parts: string[] = [];
  sections.forEach((s, i) => {
    if (s.heading === "Lore") {
      // A mind's shared lore is all it knows, in no order of relevance: never cut.
      const shown = notesPart(loreNotes(s.body), speaker, layout, null);
      if (shown) parts.push(shown);
    } else parts.push(s.heading ? `[${s.heading}]\n${s.body}` : i === 0 && layout.instructions === "dropped" ? withoutInstructions(s.body) : s.body);
    if (i === 0 && layout.example && layout.exampleAt !== "turn") parts.push(exampleExchange(speaker, layout));
  });
  return parts.join("\n\n");
}

/** The persona without the sentences that instruct a chat model (src/npc/prompt/systemPrompt.ts writes them). */
function withoutInstructions(persona: string): string {
  return persona
    .replace(/, a character in a game\. Stay in character[^\n]*/, ".")
    .split("\n")
    .filter((line) => !/^Your knowledge of the world is /.test(line))
    .join("\n")
    .trim();
}

/** The example's notes and exchanges, by kind (TranscriptLayout.exampleKind): about nothing in any world. */
const EXAMPLES: Record<NonNullable<TranscriptLayout["exampleKind"]>, { notes: string[]; turns: [string, string][] }> = {
  well: { notes: ["The old well: The old well behind the house is forty feet deep."], turns: [["How deep is the old well?", "Forty feet, give or take."]] },
  two: {
    notes: ["The old well: The old well behind the house is forty feet deep.", "The miller's dog: The miller's dog is called Pepper."],
    turns: [["How deep is the old well?", "Forty feet, give or take."], ["What is the miller's dog called?", "Pepper."]],
  },
  unknown: {
    notes: ["The old well: The old well behind the house is forty feet deep."],
    turns: [["How deep is the old well?", "Forty feet, give or take."], ["Who dug the old well?", "That I couldn't tell you."]],
  },
};

/**
 * The example exchange put after the persona: generic, about nothing in any world, showing the speaker take the
 * answer from what it knows and say it briefly in its own voice.
 */
export function exampleExchange(speaker: string, layout: TranscriptLayout): string {
  const { notes, turns } = EXAMPLES[layout.exampleKind ?? "well"];
  const knows = notesPart(notes, speaker, layout.notes === "sections" ? { ...layout, notes: "sections" } : layout, null)!;
  const exchange = turns
    .map(([q, a]) => (layout.player === "script" ? `Player: ${q}\n${speaker}: ${a}` : `[Player]\n${q}\n\n${speaker}: ${a}`))
    .join("\n\n");
  return `${knows}\n\n${exchange}`;
}
