/**
 * A conversation as a lore test case, with suggested expectations a writer then reviews — the documents whose
 * lore reached the prompt (knowsFrom) and the names the reply used that the lore holds too (mentions). Used by
 * the Studio's "save this playground turn as a test" and by accepting a recorded candidate. Values are written
 * as JSON strings, which YAML reads as they are. No imports: the Studio bundles this file as it is.
 */
export interface PlaygroundTurn {
  player: string;
  reply: string;
  /** the turn's preview trace: its lore notes */
  lore: { documentName: string }[];
  /** the prompt's text (what the lore said): a reply's name found there is one worth keeping */
  prompt?: string;
  /** the words to keep, when they were found while the prompt was at hand (a recorded turn keeps no prompt) */
  keep?: string[];
}

const q = (s: string) => JSON.stringify(s);

/**
 * Names of the reply the lore also holds: runs of capitalised words ("Wend Water", "Tobias Crane"); a single
 * capitalised word opening a sentence is not taken for a name.
 */
export function wordsToKeep(reply: string, loreText: string, max = 3): string[] {
  const lore = loreText.toLowerCase();
  const out: string[] = [];
  for (const m of reply.matchAll(/\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+)*/gu)) {
    const name = m[0].replace(/['-]+$/, "");
    const opensSentence = m.index === 0 || /[.!?:"“]\s*$/.test(reply.slice(0, m.index));
    if ((opensSentence && !/\s/.test(name)) || name.length < 4) continue;
    if (lore.includes(name.toLowerCase()) && !out.includes(name)) out.push(name);
    if (out.length >= max) break;
  }
  return out;
}

/** The case's YAML (one list item of `tests:`): earlier turns as history, the last as the turn under test. */
export function turnAsTestCase(mind: { id: string; entityName: string }, turns: PlaygroundTurn[]): string {
  const last = turns[turns.length - 1];
  const docs = [...new Set(last.lore.map((l) => l.documentName))];
  const keep = last.keep ?? wordsToKeep(last.reply, last.prompt ?? "");
  const lines = [`  - name: ${q(`${mind.entityName}: ${last.player.slice(0, 60)}`)}`, `    mind: ${q(mind.id)}`];
  const earlier = turns.slice(0, -1);
  if (earlier.length) {
    lines.push("    history:");
    for (const t of earlier) lines.push(`      - { role: player, text: ${q(t.player)} }`, `      - { role: npc, text: ${q(t.reply)} }`);
  }
  lines.push("    turns:", `      - say: ${q(last.player)}`);
  const expect: string[] = [];
  if (docs.length) expect.push(`          knowsFrom: [${docs.map(q).join(", ")}]`);
  if (keep.length) expect.push(`          mentions: [${keep.map(q).join(", ")}]`);
  if (expect.length) lines.push("        expect:", ...expect);
  return lines.join("\n") + "\n";
}

/** Adds a case to a suite draft: below its `tests:` list, or as a new suite when the draft has none. */
export function appendCase(draft: string | null, caseYaml: string): string {
  const body = draft?.trimEnd() ?? "";
  if (!/^tests:\s*$/m.test(body)) return `tests:\n${caseYaml}`;
  return `${body}\n${caseYaml}`;
}
