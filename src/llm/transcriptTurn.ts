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
  /**
   * The player's line: "section" as the server wrote it (`[Player]` and the line); "script" as `Player: <line>`;
   * "bare" the line alone (a chat template's user turn, as the naive baseline sends it).
   */
  player: "section" | "script" | "bare";
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
  /**
   * Where the example goes: after the persona ("persona"), at the end of the system text after the mind's shared lore
   * ("end": the naive prompt's order, still in the cached prefix), or in each turn just before the player's line ("turn").
   */
  exampleAt?: "persona" | "turn" | "end";
  /**
   * The persona's lines: "server" as written; "plain" as the naive baseline writes a persona (the chat instructions
   * dropped, no "Personality:"/"Backstory:" labels, hints and rules as bare lines under no heading).
   */
  persona?: "server" | "plain";
  /** How the example's note is shown: as the turn's notes are (absent), or always as a `What <name> knows:` list (the naive prompt's example). */
  exampleNotes?: "knows";
  /** The location line, the "People you know" list and the knowledge description: "kept", or "dropped" (the naive prompt has none). */
  personaExtras?: "kept" | "dropped";
  /** The reply is one line: it ends at the first line break (a script gives each speaker one line). */
  oneLine: boolean;
}

export const SECTIONS_LAYOUT: TranscriptLayout = { notes: "sections", player: "section", example: false, oneLine: false };

/**
 * In use: the naive baseline's layout over Lorehold's prefix and notes: a plain persona (no chat instructions, labels
 * or list headings, no location or "People you know" lines), the notes as pasted documents under their titles, then
 * the example exchange just above the player's script line (at the end of the system text, so still in the cached
 * prefix). Why: on the tuning worlds, Gemma 3 270M, seeds 1–3, guard on, it grounds as the previous layout did (40 vs
 * 41 of 126, within one seed's swing), and on the held-out world the naive prompt, laid out this way, grounded ahead
 * of the previous layout on both small models (BENCHMARKS.md "The smallest models (fifth round)").
 */
export const TRANSCRIPT_LAYOUT: TranscriptLayout = {
  notes: "docs",
  player: "script",
  example: true,
  exampleNotes: "knows",
  exampleAt: "end",
  persona: "plain",
  personaExtras: "dropped",
  oneLine: false,
};

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

/**
 * A note (`Title: text`) as a pasted document: its title on a line of its own. The title ends at the first ": "
 * outside parentheses (a secret's title carries a marker with a colon of its own: "Title (your secret: …): text").
 */
function asDocument(note: string): string {
  let depth = 0;
  for (let i = 0; i < note.length - 1; i++) {
    const c = note[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === ":" && note[i + 1] === " " && depth === 0 && i > 0) return `${note.slice(0, i)}:\n${note.slice(i + 2)}`;
  }
  return note;
}

const unchanged = (l: TranscriptLayout) =>
  l.notes === "sections" && l.player === "section" && l.maxNotes === undefined && !l.example && (l.persona ?? "server") === "server" && (l.personaExtras ?? "kept") === "kept" && (l.instructions ?? "kept") === "kept";

/**
 * A player's turn laid out for `speaker` (undefined: a generation that names no speaker; the text is left as sent).
 * `text` is the turn as the server wrote it, without the opening label that follows it: sections (`[Lore]`,
 * `[Player]` …), or the player's bare line when the turn carries no notes.
 */
export function transcriptUserTurn(text: string, speaker: string | undefined, layout: TranscriptLayout): string {
  if (speaker === undefined || unchanged(layout)) return text;
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
  parts.push(layout.player === "script" ? `Player: ${player.replace(/\s*\n\s*/g, " ")}` : layout.player === "bare" ? player : `[Player]\n${player}`);
  return parts.join("\n\n");
}

/**
 * The system text laid out for `speaker`: its `[Lore]` section (a mind's shared lore, always in its prompt) as the
 * layout shows notes, and the example exchange, when the layout has one, after the persona (before any notes).
 */
export function transcriptSystem(text: string, speaker: string | undefined, layout: TranscriptLayout): string {
  if (speaker === undefined || unchanged(layout)) return text;
  const sections = turnSections(text);
  const parts: string[] = [];
  sections.forEach((s, i) => {
    if (s.heading === "Lore") {
      // A mind's shared lore is all it knows, in no order of relevance: never cut.
      const shown = notesPart(loreNotes(s.body), speaker, layout, null);
      if (shown) parts.push(shown);
    } else parts.push(s.heading ? `[${s.heading}]\n${s.body}` : i === 0 ? personaAs(s.body, layout) : s.body);
    if (i === 0 && layout.example && (layout.exampleAt ?? "persona") === "persona") parts.push(exampleExchange(speaker, layout));
  });
  if (layout.example && layout.exampleAt === "end") parts.push(exampleExchange(speaker, layout));
  return parts.join("\n\n");
}

/** The persona's lines (src/npc/prompt/systemPrompt.ts writes them) as the layout shows them. */
function personaAs(persona: string, layout: TranscriptLayout): string {
  const plain = layout.persona === "plain";
  let text = plain || layout.instructions === "dropped" ? withoutInstructions(persona) : persona;
  if (layout.personaExtras === "dropped") text = withoutExtras(text);
  return plain ? plainPersona(text) : text;
}

/** Headings of the persona's lists, and labels of its lines, that the naive prompt does not write. */
const LIST_HEADINGS = new Set(["Things you tend to do:", "Rules you never break:"]);
/** The persona's lines as the naive prompt writes them: no labels; hints and rules as bare lines under no heading. */
function plainPersona(persona: string): string {
  let inList = false;
  const out: string[] = [];
  for (const line of persona.split("\n")) {
    if (LIST_HEADINGS.has(line)) inList = true;
    else if (inList && line.startsWith("- ")) out.push(line.slice(2));
    else {
      inList = false;
      out.push(line.replace(/^(?:Personality|Backstory): /, ""));
    }
  }
  return out.join("\n");
}

/** The persona without its location line, its "People you know:" list (the heading and its `- ` lines) and the knowledge description. */
function withoutExtras(persona: string): string {
  const out: string[] = [];
  let inPeople = false;
  for (const line of persona.split("\n")) {
    if (line === "People you know:") inPeople = true;
    else if (inPeople && line.startsWith("- ")) continue;
    else inPeople = false;
    if (inPeople || /^You are at /.test(line) || /^What you know: /.test(line)) continue;
    out.push(line);
  }
  return out.join("\n");
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
 * What the example exchange of `layout` says that a reply could copy (none when it has no example): each answer, and
 * each of its notes' title and text. The reply guard's `exampleCopy` check (src/npc/replies/detectors.ts) reads them:
 * a base model shown the example answers other questions with it ("Forty feet, give or take." for a distance, "The
 * old well." for a tavern's owner: BENCHMARKS.md "the smallest models (fifth round)").
 */
export function exampleLines(layout: TranscriptLayout = TRANSCRIPT_LAYOUT): string[] {
  if (!layout.example) return [];
  const { notes, turns } = EXAMPLES[layout.exampleKind ?? "well"];
  const out = new Set<string>();
  for (const [, answer] of turns) out.add(answer);
  for (const n of notes) {
    const at = n.indexOf(": ");
    if (at > 0) out.add(n.slice(0, at)).add(n.slice(at + 2));
    else out.add(n);
  }
  return [...out];
}

/**
 * The example exchange put after the persona: generic, about nothing in any world, showing the speaker take the
 * answer from what it knows and say it briefly in its own voice.
 */
export function exampleExchange(speaker: string, layout: TranscriptLayout): string {
  const { notes, turns } = EXAMPLES[layout.exampleKind ?? "well"];
  const knows = notesPart(notes, speaker, layout.exampleNotes ? { ...layout, notes: layout.exampleNotes } : layout, null)!;
  const exchange = turns
    .map(([q, a]) => (layout.player === "script" ? `Player: ${q}\n${speaker}: ${a}` : `[Player]\n${q}\n\n${speaker}: ${a}`))
    .join("\n\n");
  return `${knows}\n\n${exchange}`;
}
