import { ApiError } from "../core/errors.ts";
import { jsonErrorOffset } from "../packs/jsonErrorOffset.ts";
import { INVALID_CARD, type Parsed } from "./cardTypes.ts";
import { MAX_CARD_JSON_CHARS, parseCardOrBook, sniffJson } from "./parseCard.ts";
import { isPng, PngProblem, readPngText } from "./png/readPngText.ts";

export type CardFormat = "png" | "json";

/** Whether these bytes are a card or lorebook (a PNG, or JSON that looks like one); false for lore packs and anything else. */
export function looksLikeCard(bytes: Uint8Array): boolean {
  if (isPng(bytes)) return true;
  const text = decodeUtf8(bytes);
  if (text === null || !/^\s*\{/.test(text)) return false;
  try {
    return sniffJson(JSON.parse(text)) !== null;
  } catch {
    return false;
  }
}

/**
 * A card (PNG with a `ccv3` or `chara` text chunk, or JSON) or a lorebook
 * (JSON), parsed and checked. Refused whole (400 Invalid character card /
 * Invalid lorebook) with the problem named.
 */
export function readCardBytes(bytes: Uint8Array): Parsed & { format: CardFormat } {
  if (isPng(bytes)) {
    let texts: Map<string, string>;
    try {
      texts = readPngText(bytes, ["ccv3", "chara"]);
    } catch (e) {
      if (e instanceof PngProblem) throw refuse(`png: ${e.message}`);
      throw e;
    }
    // V3 spec: a V3 reader takes ccv3 over chara when both are present.
    const chunk = texts.has("ccv3") ? "ccv3" : texts.has("chara") ? "chara" : null;
    if (!chunk) throw refuse("png: no character card in this PNG (no 'chara' or 'ccv3' text chunk)");
    const b64 = texts.get(chunk)!.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 === 1) throw refuse(`png: the '${chunk}' text chunk is not base64`);
    const json = decodeUtf8(Buffer.from(b64, "base64"));
    if (json === null) throw refuse(`png: the '${chunk}' text chunk is not base64 of UTF-8 text`);
    const parsed = parseJsonText(json, `png '${chunk}' chunk`);
    const out = parseCardOrBook(parsed);
    if (out.kind !== "card") throw refuse(`png: the '${chunk}' text chunk holds a lorebook, not a character card`);
    return { ...out, format: "png" };
  }
  if (bytes.length > MAX_CARD_JSON_CHARS) throw refuse(`card: larger than ${MAX_CARD_JSON_CHARS} bytes`);
  const text = decodeUtf8(bytes);
  if (text === null) throw refuse("card: neither a PNG nor UTF-8 JSON text");
  return { ...parseCardOrBook(parseJsonText(text, "card")), format: "json" };
}

function parseJsonText(text: string, what: string): unknown {
  const clean = text.replace(/^\uFEFF/, "");
  try {
    return JSON.parse(clean);
  } catch {
    let at: number | null = null;
    try {
      at = jsonErrorOffset(clean);
    } catch {
      at = null; // the locator recurses: a hostile nesting depth overflows it
    }
    if (typeof at !== "number" || !Number.isFinite(at)) throw refuse(`${what}: not valid JSON (or nested too deeply)`);
    const before = clean.slice(0, at);
    const line = before.split("\n").length;
    const column = at - before.lastIndexOf("\n");
    throw refuse(`${what}: not valid JSON (line ${line}, column ${column})`);
  }
}

function decodeUtf8(b: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(b);
  } catch {
    return null;
  }
}

function refuse(detail: string): ApiError {
  return new ApiError(400, INVALID_CARD, { details: [detail] });
}


