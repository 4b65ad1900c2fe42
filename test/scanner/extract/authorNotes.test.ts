import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { skipKindOfPath } from "../../../src/scanner/extract/scanPlan.ts";

/**
 * Scanner v3.2 (BENCHMARKS "Scanner v3.2"): what an author writes for themselves — a TODO left in a Twine passage, a
 * process journal kept beside the game — reached review as the world's text.
 */
const texts = (path: string, content: string) => extractFile(path, content).sections.map((s) => s.text);

const twee = [
  ":: object-yearbook",
  "Also will find copied checks and practiced handwriting samples. Some forms match the address next door.",
  "TODO - track/gymnast medal, note about Paul. No journal here",
  "",
  ":: object-attic-journal",
  "TODO - talk about how easy it was to break their challenges. All 4 of them.",
  "",
  ":: action-talk-susan-web",
  "Susan is trapped in a web of silver thread, humming the song her mother sang at the mill.",
  "FIXME",
].join("\n");

describe("an author's TODO lines are not the world's text", () => {
  test("a TODO or FIXME line goes, the passage's story stays; a passage that was only a TODO gives no candidate", () => {
    const all = texts("story/passages/05_objects.twee", twee);
    expect(all.join("\n")).not.toContain("TODO");
    expect(all.join("\n")).not.toContain("FIXME");
    expect(all.some((t) => t.includes("practiced handwriting samples"))).toBe(true);
    expect(all.some((t) => t.includes("trapped in a web of silver thread"))).toBe(true);
    expect(all.some((t) => t.includes("break their challenges"))).toBe(false);
  });

  test("the word in a sentence, or in lower case, stays", () => {
    const prose = "The clerk kept a ledger titled TODO in red ink, and nobody in Karn dared ask what it held.\ntodo: the clerk's cat, who sleeps on it.";
    expect(texts("lore/clerk.txt", prose).join("\n")).toContain("titled TODO in red ink");
    expect(texts("lore/clerk.txt", prose).join("\n")).toContain("todo: the clerk's cat");
  });
});

describe("an author's process notes are meta", () => {
  test("a process or development journal, a devlog, a post-mortem, a to-do list", () => {
    for (const p of ["game/process/process-journal.md", "notes/dev-log.md", "devlog.txt", "design_notes.md", "postmortem.md", "process/to-do.md"]) {
      expect(skipKindOfPath(p)).toBe("meta");
    }
  });

  test("a journal in the world is read: a character's journal, a captain's log", () => {
    for (const p of ["story/journal.md", "lore/captains-log.md", "items/journal-of-the-warden.txt", "lore/design-of-the-citadel.md"]) {
      expect(skipKindOfPath(p)).toBeNull();
    }
  });
});
