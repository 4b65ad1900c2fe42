import { Unzlib } from "fflate";
import { crc32 } from "./crc32.ts";

export const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Bounds of PNG reading. A card PNG is an avatar (typically < 5 MB) with
 * the card as text; nothing here trusts a length field: every chunk must fit
 * inside the bytes actually present, text chunks are capped before they are
 * decoded, and compressed text is inflated in small steps that stop at the cap.
 */
export const PNG_LIMITS = {
  fileBytes: 32 * 1024 * 1024,
  textChunkBytes: 16 * 1024 * 1024,
  inflatedBytes: 16 * 1024 * 1024,
} as const;

export class PngProblem extends Error {}

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b);
}

/**
 * The text chunks (tEXt, zTXt, iTXt) whose keyword is one of `wanted`
 * (compared case-insensitively), keyword lower-cased → text, first one of
 * each keyword wins. Throws PngProblem naming what is wrong and where.
 */
export function readPngText(bytes: Uint8Array, wanted: readonly string[], limits = PNG_LIMITS): Map<string, string> {
  if (bytes.length > limits.fileBytes) throw new PngProblem(`PNG larger than ${limits.fileBytes} bytes`);
  if (!isPng(bytes)) throw new PngProblem("not a PNG (bad signature)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found = new Map<string, string>();
  let at = 8;
  let first = true;
  for (;;) {
    if (at + 12 > bytes.length) throw new PngProblem(`PNG truncated at byte ${at} (no IEND chunk)`);
    const length = view.getUint32(at);
    const typeBytes = bytes.subarray(at + 4, at + 8);
    const type = String.fromCharCode(...typeBytes);
    if (!/^[A-Za-z]{4}$/.test(type)) throw new PngProblem(`PNG chunk at byte ${at}: invalid chunk type`);
    // `length` is untrusted: it must fit in what is actually there.
    if (length > bytes.length - at - 12) throw new PngProblem(`PNG chunk ${type} at byte ${at}: length ${length} runs past the end of the file`);
    if (first && type !== "IHDR") throw new PngProblem("PNG does not start with an IHDR chunk");
    first = false;
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IEND") break;
    if (type === "tEXt" || type === "zTXt" || type === "iTXt") {
      const nul = data.indexOf(0);
      const keyword = nul > 0 && nul < 80 ? latin1(data.subarray(0, nul)).toLowerCase() : "";
      if (wanted.includes(keyword) && !found.has(keyword)) {
        if (length > limits.textChunkBytes) throw new PngProblem(`PNG ${type} chunk '${keyword}': larger than ${limits.textChunkBytes} bytes`);
        const crc = view.getUint32(at + 8 + length);
        if (crc32(typeBytes, data) !== crc) throw new PngProblem(`PNG ${type} chunk '${keyword}' at byte ${at}: CRC mismatch (damaged file)`);
        found.set(keyword, textOf(type, data.subarray(nul + 1), keyword, limits.inflatedBytes));
      }
    }
    at += 12 + length;
  }
  return found;
}

function textOf(type: string, rest: Uint8Array, keyword: string, cap: number): string {
  if (type === "tEXt") return latin1(rest);
  if (type === "zTXt") {
    if (rest[0] !== 0) throw new PngProblem(`PNG zTXt chunk '${keyword}': unknown compression method`);
    return latin1(inflateCapped(rest.subarray(1), keyword, cap));
  }
  // iTXt: compression flag, method, language tag\0, translated keyword\0, text (UTF-8)
  const compressed = rest[0] === 1;
  if (compressed && rest[1] !== 0) throw new PngProblem(`PNG iTXt chunk '${keyword}': unknown compression method`);
  const langEnd = rest.indexOf(0, 2);
  const transEnd = langEnd < 0 ? -1 : rest.indexOf(0, langEnd + 1);
  if (transEnd < 0) throw new PngProblem(`PNG iTXt chunk '${keyword}': malformed header`);
  const body = rest.subarray(transEnd + 1);
  return utf8(compressed ? inflateCapped(body, keyword, cap) : body, keyword);
}

/** zlib-inflates at most `cap` bytes, feeding 1 KiB at a time so a bomb stops within ~1 MiB of the cap. */
function inflateCapped(input: Uint8Array, keyword: string, cap: number): Uint8Array {
  const out: Uint8Array[] = [];
  let total = 0;
  let done = false;
  const z = new Unzlib((chunk, final) => {
    total += chunk.length;
    if (total > cap) throw new PngProblem(`PNG text chunk '${keyword}': inflates to more than ${cap} bytes`);
    out.push(chunk);
    if (final) done = true;
  });
  try {
    for (let i = 0; i < input.length; i += 1024) z.push(input.subarray(i, i + 1024), i + 1024 >= input.length);
  } catch (e) {
    if (e instanceof PngProblem) throw e;
    throw new PngProblem(`PNG text chunk '${keyword}': corrupt compressed data`);
  }
  if (!done) throw new PngProblem(`PNG text chunk '${keyword}': truncated compressed data`);
  const all = new Uint8Array(total);
  let o = 0;
  for (const c of out) {
    all.set(c, o);
    o += c.length;
  }
  return all;
}

function latin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
  return s;
}

function utf8(b: Uint8Array, keyword: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(b);
  } catch {
    throw new PngProblem(`PNG text chunk '${keyword}': not valid UTF-8`);
  }
}
