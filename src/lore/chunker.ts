/**
 * Splits a lore document into retrieval chunks (DESIGN.md "Lore documents from
 * files": chunks follow headings and paragraphs, ~300–500 tokens, small overlap).
 *
 * - Markdown ATX (`## Title`) and setext (`Title` / `===`) headings are
 *   recognised; `#` lines inside fenced code blocks are not headings.
 * - A heading starts a new chunk when the current chunk already holds at least
 *   `headingBreakTokens` (¾ of target, ~300); a heading inside a small chunk stays
 *   in it as a `## Title` line, so short sections are not scattered.
 * - Every chunk starts with the heading path in force where it starts
 *   (`History > The Founding`) as its first line, so a chunk read alone still says
 *   what it is about.
 * - Paragraphs are kept whole when they fit; a longer one is split at sentence
 *   ends, and a sentence longer than a chunk at word boundaries.
 * - When a section continues into the next chunk, that chunk repeats the last
 *   ~`overlapTokens` of the previous one (whole sentences when they fit, else
 *   words). A new section starts clean: no overlap across a heading break.
 * - No chunk exceeds `maxTokens` (by the estimate below, heading line included).
 */

export interface Chunk {
  chunkIndex: number;
  content: string;
}

export interface ChunkOptions {
  /** Size a chunk grows to before it is closed. Default 400. */
  targetTokens?: number;
  /** Hard cap, heading line and overlap included. Default 500. */
  maxTokens?: number;
  /** Tail of the previous chunk repeated when a section is split. Default 40. */
  overlapTokens?: number;
}

const TOKEN_RE = /[\p{L}\p{M}\p{N}_]+|[^\s\p{L}\p{M}\p{N}_]/gu;
const CJK_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Approximate token count, without a tokenizer (chunking must not depend on
 * which model is installed). A word counts 1 token per started 6 characters
 * ("the"/"dragon" 1, "innkeeper" 2), every punctuation mark or symbol 1, and CJK
 * text 1 per character. On English prose this lands near BPE tokenizers' ~1.3
 * tokens per word; it is an estimate for sizing chunks, never for billing.
 */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(TOKEN_RE)) n += tokensOfPiece(m[0]);
  return n;
}

function tokensOfPiece(p: string): number {
  if (p.length === 1) return 1;
  if (CJK_RE.test(p)) return [...p].length;
  return Math.ceil(p.length / 6);
}

type Block = { kind: "heading"; level: number; text: string } | { kind: "para"; text: string };

const ATX_RE = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/;
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_RE = /^ {0,3}(=+|-+)[ \t]*$/;

/** Markdown-ish block scan: headings and blank-line separated paragraphs; fenced code is one paragraph. */
function parseBlocks(content: string): Block[] {
  const lines = content.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let para: string[] = [];
  let fence: string | null = null;
  const flushPara = () => {
    const text = para.join("\n").trim();
    if (text) blocks.push({ kind: "para", text });
    para = [];
  };
  for (const line of lines) {
    if (fence !== null) {
      para.push(line);
      if (line.trimStart().startsWith(fence)) {
        fence = null;
        flushPara();
      }
      continue;
    }
    const f = FENCE_RE.exec(line);
    if (f) {
      flushPara();
      fence = f[1];
      para.push(line);
      continue;
    }
    if (line.trim() === "") {
      flushPara();
      continue;
    }
    const atx = ATX_RE.exec(line);
    if (atx) {
      flushPara();
      const text = (atx[2] ?? "").replace(/[ \t]+#+$/, "").trim();
      if (text) blocks.push({ kind: "heading", level: atx[1].length, text });
      continue;
    }
    const setext = SETEXT_RE.exec(line);
    if (setext && para.length > 0) {
      const text = para.join(" ").trim();
      para = [];
      blocks.push({ kind: "heading", level: setext[1][0] === "=" ? 1 : 2, text });
      continue;
    }
    para.push(line);
  }
  flushPara();
  return blocks;
}

interface Unit {
  text: string;
  tokens: number;
  /** Joins to the previous unit with "\n\n" (new paragraph) rather than " ". */
  newParagraph: boolean;
}

const SENTENCE_SPLIT_RE = /(?<=[.!?…。！？]["'”’)\]]?)\s+/u;

function splitSentences(text: string): string[] {
  return text.split(SENTENCE_SPLIT_RE).filter((s) => s.trim() !== "");
}

/** Splits text at whitespace into pieces of at most `max` estimated tokens (a single giant word is cut by characters). */
function splitWords(text: string, max: number): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let curTokens = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    for (const w of cutLongWord(word, max)) {
      const t = estimateTokens(w);
      if (curTokens + t > max && cur.length) {
        out.push(cur.join(" "));
        cur = [];
        curTokens = 0;
      }
      cur.push(w);
      curTokens += t;
    }
  }
  if (cur.length) out.push(cur.join(" "));
  return out;
}

function cutLongWord(word: string, max: number): string[] {
  if (estimateTokens(word) <= max) return [word];
  const out: string[] = [];
  let cur = "";
  for (const ch of word) {
    if (estimateTokens(cur + ch) > max) {
      out.push(cur);
      cur = "";
    }
    cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * A paragraph as units that each fit in `max` tokens: its sentences, and the
 * words of any sentence longer than that (the chunk loop then fills chunks word
 * by word; a single giant "word" is cut by characters).
 */
function sentenceUnits(text: string, max: number): Unit[] {
  const units: Unit[] = [];
  const add = (t: string, tokens: number) => units.push({ text: t, tokens, newParagraph: units.length === 0 });
  for (const sentence of splitSentences(text)) {
    const st = estimateTokens(sentence);
    if (st <= max) {
      add(sentence, st);
      continue;
    }
    for (const word of sentence.split(/\s+/).filter(Boolean)) {
      for (const piece of cutLongWord(word, max)) add(piece, estimateTokens(piece));
    }
  }
  return units;
}

/** The last ~`budget` tokens of `text`: whole sentences if any fit, otherwise words. */
function tail(text: string, budget: number): string {
  if (budget <= 0) return "";
  const sentences = splitSentences(text.replace(/\s+/g, " ").trim());
  const picked: string[] = [];
  let used = 0;
  for (let i = sentences.length - 1; i >= 0; i--) {
    const t = estimateTokens(sentences[i]);
    if (used + t > budget) break;
    picked.unshift(sentences[i]);
    used += t;
  }
  if (picked.length) return picked.join(" ");
  const words = text.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  used = 0;
  for (let i = words.length - 1; i >= 0; i--) {
    const t = estimateTokens(words[i]);
    if (used + t > budget) break;
    out.unshift(words[i]);
    used += t;
  }
  return out.join(" ");
}

/** Heading paths longer than this are cut so a chunk is never mostly heading. */
const MAX_PATH_TOKENS = 60;

function pathLine(path: string[]): string {
  if (!path.length) return "";
  const line = path.join(" > ");
  if (estimateTokens(line) <= MAX_PATH_TOKENS) return line;
  return splitWords(line, MAX_PATH_TOKENS - 1)[0] + " …";
}

export function chunkText(content: string, opts: ChunkOptions = {}): Chunk[] {
  const maxTokens = Math.max(20, opts.maxTokens ?? 500);
  const targetTokens = Math.min(maxTokens, Math.max(10, opts.targetTokens ?? 400));
  const overlapTokens = Math.max(0, Math.min(opts.overlapTokens ?? 40, Math.floor(targetTokens / 4)));
  const headingBreakTokens = Math.floor(targetTokens * 0.75);

  const blocks = parseBlocks(content);
  if (!blocks.length) return [];

  const chunks: Chunk[] = [];
  const headingStack: { level: number; text: string }[] = [];
  const currentPath = () => headingStack.map((h) => h.text);

  // The chunk being built: heading line, then body (overlap + fresh units).
  let header = "";
  let headerTokens = 0;
  let body = "";
  let bodyTokens = 0;
  let freshTokens = 0;

  const start = (path: string[], overlap: string) => {
    header = pathLine(path);
    headerTokens = header ? estimateTokens(header) : 0;
    body = overlap;
    bodyTokens = overlap ? estimateTokens(overlap) : 0;
    freshTokens = 0;
  };
  const emit = () => {
    if (freshTokens === 0) return;
    chunks.push({ chunkIndex: chunks.length, content: header ? `${header}\n${body}` : body });
  };
  const closeWithOverlap = () => {
    const prevBody = body;
    emit();
    start(currentPath(), tail(prevBody, overlapTokens));
  };
  const append = (text: string, tokens: number, newParagraph: boolean) => {
    body = body ? body + (newParagraph ? "\n\n" : " ") + text : text;
    bodyTokens += tokens;
    freshTokens += tokens;
  };

  start([], "");
  for (const block of blocks) {
    if (block.kind === "heading") {
      while (headingStack.length && headingStack[headingStack.length - 1].level >= block.level) headingStack.pop();
      headingStack.push({ level: block.level, text: block.text.replace(/\s+/g, " ") });
      if (freshTokens === 0) {
        // Nothing written under the previous heading yet: the chunk simply takes the new path.
        start(currentPath(), "");
      } else if (bodyTokens >= headingBreakTokens) {
        emit();
        start(currentPath(), "");
      } else {
        const line = `${"#".repeat(block.level)} ${block.text}`;
        const t = estimateTokens(line);
        if (headerTokens + bodyTokens + t > maxTokens) {
          emit();
          start(currentPath(), "");
        } else append(line, t, true);
      }
      continue;
    }
    // Room for one unit in a chunk that carries the heading line and an overlap.
    const unitMax = Math.max(8, maxTokens - headerTokens - overlapTokens);
    const paraTokens = estimateTokens(block.text);
    if (freshTokens > 0 && bodyTokens + paraTokens > targetTokens && bodyTokens >= headingBreakTokens) {
      // The chunk is big enough: close it at this paragraph boundary rather than mid-paragraph.
      closeWithOverlap();
    }
    if (paraTokens <= unitMax && bodyTokens + paraTokens <= targetTokens && headerTokens + bodyTokens + paraTokens <= maxTokens) {
      append(block.text, paraTokens, true);
      continue;
    }
    // Too big for what is left: fill the chunk sentence by sentence.
    for (const unit of sentenceUnits(block.text, unitMax)) {
      const over = bodyTokens + unit.tokens > targetTokens || headerTokens + bodyTokens + unit.tokens > maxTokens;
      if (freshTokens > 0 && over) closeWithOverlap();
      // An overlap that would push this unit past the cap is dropped rather than the cap broken.
      if (headerTokens + bodyTokens + unit.tokens > maxTokens) start(currentPath(), "");
      append(unit.text, unit.tokens, unit.newParagraph);
    }
  }
  emit();
  if (!chunks.length && headingStack.length) {
    // A document of headings only still says something (its outline).
    const outline = blocks.flatMap((b) => (b.kind === "heading" ? [b.text] : [])).join("\n");
    const pieces = estimateTokens(outline) <= maxTokens ? [outline] : splitWords(outline, maxTokens);
    return pieces.map((p, i) => ({ chunkIndex: i, content: p }));
  }
  return chunks;
}
