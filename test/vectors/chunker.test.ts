import { describe, expect, test } from "bun:test";
import { chunkText, estimateTokens } from "../../src/lore/chunker.ts";

const sentence = (i: number) => `Sentence ${i} tells how the dragon guarded the pass near Thornhaven.`;
const paragraph = (n: number, from = 0) => Array.from({ length: n }, (_, i) => sentence(from + i)).join(" ");
const firstLine = (s: string) => s.split("\n", 1)[0];
/** Whole sentences adding up to at least `tokens` (estimated). */
const paragraphOf = (tokens: number, from = 0) => {
  const out: string[] = [];
  while (estimateTokens(out.join(" ")) < tokens) out.push(sentence(from + out.length));
  return out.join(" ");
};

describe("estimateTokens", () => {
  test("approximates BPE: short words 1, long words more, punctuation 1, CJK per character", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("the dragon")).toBe(2);
    expect(estimateTokens("innkeeper")).toBe(2);
    expect(estimateTokens("Hello, world!")).toBe(4);
    expect(estimateTokens("龍の歴史")).toBe(4);
  });
});

describe("chunkText", () => {
  test("an empty or blank document gives no chunks", () => {
    expect(chunkText("")).toEqual([]);
    expect(chunkText(" \n\n\t\n")).toEqual([]);
  });

  test("a short document is one chunk with its heading path first", () => {
    const chunks = chunkText("# Thornhaven\n\nA small town.\n\nIt has an inn.");
    expect(chunks).toEqual([{ chunkIndex: 0, content: "Thornhaven\nA small town.\n\nIt has an inn." }]);
  });

  test("no headings: no heading line", () => {
    expect(chunkText("Just prose.")).toEqual([{ chunkIndex: 0, content: "Just prose." }]);
  });

  test("small sections stay together; the sub-heading stays inline", () => {
    const [only, ...rest] = chunkText("# Town\n\nShort intro.\n\n## Inn\n\nGarrick runs it.");
    expect(rest).toEqual([]);
    expect(only.content).toBe("Town\nShort intro.\n\n## Inn\n\nGarrick runs it.");
  });

  test("a heading starts a new chunk once the current one is past ~300 tokens, carrying the nested path", () => {
    const doc = `# History\n\n${paragraphOf(320)}\n\n## The Founding\n\n${paragraph(3, 100)}\n\n### Walls\n\n${paragraphOf(270, 200)}\n\n## Later\n\nShort.`;
    const chunks = chunkText(doc);
    expect(chunks.map((c) => firstLine(c.content))).toEqual(["History", "History > The Founding", "History > Later"]);
    expect(chunks[1].content).toContain("### Walls");
    expect(chunks[0].content).not.toContain("The Founding");
    expect(chunks.map((c) => c.chunkIndex)).toEqual([0, 1, 2]);
  });

  test("setext headings count; '#' lines inside code fences do not", () => {
    const chunks = chunkText(`Realm\n=====\n\n${paragraphOf(320)}\n\n\`\`\`\n# not a heading\n\`\`\`\n\nRegions\n-------\n\nNorth and south.`);
    expect(chunks.map((c) => firstLine(c.content))).toEqual(["Realm", "Realm > Regions"]);
    expect(chunks[0].content).toContain("# not a heading");
  });

  test("long paragraphs are split at sentences, every chunk within maxTokens, near the target", () => {
    const doc = `# Chronicle\n\n${paragraph(200)}`;
    const chunks = chunkText(doc);
    expect(chunks.length).toBeGreaterThan(8);
    for (const c of chunks) {
      expect(estimateTokens(c.content)).toBeLessThanOrEqual(500);
      expect(firstLine(c.content)).toBe("Chronicle");
    }
    for (const c of chunks.slice(0, -1)) expect(estimateTokens(c.content)).toBeGreaterThan(300);
    // Nothing lost: every sentence is in some chunk, and chunks end on sentence boundaries.
    const all = chunks.map((c) => c.content).join("\n");
    for (let i = 0; i < 200; i++) expect(all).toContain(sentence(i));
    for (const c of chunks) expect(c.content.trimEnd().endsWith(".")).toBe(true);
  });

  test("consecutive chunks of one section overlap by a small tail", () => {
    const chunks = chunkText(paragraph(100), { overlapTokens: 40 });
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1].content;
      const cur = chunks[i].content;
      const firstSentence = cur.split(/(?<=\.)\s/)[0];
      expect(prev).toContain(firstSentence);
      // ~40 tokens of overlap: the two sentences (17 tokens each) that fit.
      const shared = cur.split(/(?<=\.)\s/).filter((s) => prev.includes(s));
      expect(estimateTokens(shared.join(" "))).toBeLessThanOrEqual(40);
      expect(shared.length).toBeGreaterThanOrEqual(1);
    }
  });

  test("no overlap across a heading break", () => {
    const chunks = chunkText(`# A\n\n${paragraphOf(320)}\n\n# B\n\n${paragraph(2, 500)}`);
    expect(chunks).toHaveLength(2);
    expect(chunks[1].content).toBe(`B\n${paragraph(2, 500)}`);
  });

  test("a sentence longer than a chunk is split at words; a giant word by characters", () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ");
    const chunks = chunkText(words);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(estimateTokens(c.content)).toBeLessThanOrEqual(500);
    expect(chunks.at(-1)!.content.endsWith("w1999")).toBe(true);
    const giant = chunkText("x".repeat(6000));
    for (const c of giant) expect(estimateTokens(c.content)).toBeLessThanOrEqual(500);
    expect(giant.map((c) => c.content).join("").replaceAll(/\s/g, "").length).toBeGreaterThanOrEqual(6000);
  });

  test("options change the sizes", () => {
    const small = chunkText(paragraph(100), { targetTokens: 100, maxTokens: 150, overlapTokens: 10 });
    for (const c of small) expect(estimateTokens(c.content)).toBeLessThanOrEqual(150);
    expect(small.length).toBeGreaterThan(chunkText(paragraph(100)).length * 3);
  });

  test("a document of headings only keeps its outline", () => {
    expect(chunkText("# Only\n## Headings")).toEqual([{ chunkIndex: 0, content: "Only\nHeadings" }]);
  });

  test("CRLF line endings are handled", () => {
    expect(chunkText("# T\r\n\r\nBody one.\r\n\r\nBody two.")).toEqual([{ chunkIndex: 0, content: "T\nBody one.\n\nBody two." }]);
  });
});
