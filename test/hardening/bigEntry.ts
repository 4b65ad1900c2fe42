import { prng } from "../support/prng.ts";
import { zipfWords } from "../support/zipfWords.ts";

/** `mb` megabytes of lore-like plain text: paragraphs of Zipf-distributed words, some with a heading line. */
export function bigLoreText(mb: number, seed = 17): string {
  const rand = prng(seed);
  const { word } = zipfWords(rand, 5000);
  const parts: string[] = [];
  let size = 0;
  let n = 0;
  while (size < mb * 1024 * 1024) {
    const words = Array.from({ length: 40 + Math.floor(rand() * 80) }, word);
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    const para = (n++ % 25 === 0 ? `Chapter ${n}: ${word()} ${word()}\n\n` : "") + words.join(" ") + ".\n\n";
    parts.push(para);
    size += para.length;
  }
  return parts.join("");
}
