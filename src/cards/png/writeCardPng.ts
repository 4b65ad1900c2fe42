import { zlibSync } from "fflate";
import { crc32 } from "./crc32.ts";
import { PNG_SIGNATURE } from "./readPngText.ts";

/**
 * A PNG holding a card: a solid-colour portrait (what SillyTavern shows as
 * the avatar) and the card as base64 JSON in `tEXt` chunks, as the V2 spec
 * says (`chara`), plus `ccv3` when a V3 card is given too.
 */
export function writeCardPng(texts: Record<string, string>, opts: { width?: number; height?: number; rgb?: [number, number, number] } = {}): Uint8Array {
  const width = opts.width ?? 256;
  const height = opts.height ?? 384;
  const [r, g, b] = opts.rgb ?? [0x6b, 0x4f, 0x2a];
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, adaptive filtering, no interlace
  const row = 1 + width * 3;
  const raw = new Uint8Array(row * height);
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set([r, g, b], y * row + 1 + x * 3);
  }
  const parts: Uint8Array[] = [PNG_SIGNATURE, chunk("IHDR", ihdr)];
  for (const [keyword, text] of Object.entries(texts)) parts.push(chunk("tEXt", latin1Bytes(`${keyword}\0${text}`)));
  parts.push(chunk("IDAT", zlibSync(raw, { level: 9 })), chunk("IEND", new Uint8Array(0)));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  const t = latin1Bytes(type);
  out.set(t, 4);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(t, data));
  return out;
}

/** base64 of UTF-8, the encoding of a card in a text chunk. */
export function base64Utf8(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}

function latin1Bytes(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 0xff;
  return b;
}
