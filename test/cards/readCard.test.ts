import { describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { readCardBytes, looksLikeCard } from "../../src/cards/readCardBytes.ts";
import { apiErrorOf } from "../packs/helpers.ts";
import { b64, bytesOf, iTXt, LOREBOOK_V3, MIRA_V2, ODO_V3, png, pngChunk, SIG, tEXt, V1_CARD, WORLD_INFO, zTXt } from "./fixtures.ts";

describe("reading cards", () => {
  test("V2 JSON: every field and the book's entries, normalised", () => {
    const r = readCardBytes(bytesOf(MIRA_V2));
    expect(r.kind).toBe("card");
    if (r.kind !== "card") return;
    expect(r.format).toBe("json");
    expect(r.card.spec).toBe("chara_card_v2");
    expect(r.card.name).toBe("Mira Ashgrove");
    expect(r.card.alternateGreetings).toEqual(["The lamp needs oil. Hand me that can."]);
    expect(r.card.book!.entries.map((e) => [e.id, e.keys, e.secondaryKeys, e.enabled, e.constant, e.selective, e.insertionOrder])).toEqual([
      ["1", ["Drowned Fleet", "fleet"], ["ghost", "ships"], true, false, true, 10],
      ["2", ["lighthouse", "lamp"], [], true, false, false, 20],
      ["3", [], [], true, true, false, 0],
      ["4", ["smugglers"], [], false, false, false, 30],
    ]);
  });
  test("V2 PNG (chara tEXt chunk)", () => {
    const r = readCardBytes(png(tEXt("chara", b64(MIRA_V2))));
    expect(r).toMatchObject({ kind: "card", format: "png", card: { name: "Mira Ashgrove" } });
  });
  test("V3 PNG with both chunks: ccv3 wins, as the V3 spec says", () => {
    const r = readCardBytes(png(tEXt("chara", b64(MIRA_V2)), tEXt("ccv3", b64(ODO_V3))));
    expect(r).toMatchObject({ kind: "card", card: { spec: "chara_card_v3", name: "Odo" } });
  });
  test("a card in a compressed iTXt chunk (UTF-8) is read", () => {
    const r = readCardBytes(png(iTXt("chara", b64({ ...MIRA_V2, data: { ...MIRA_V2.data, name: "Mïra ✶" } }), true)));
    expect(r).toMatchObject({ kind: "card", card: { name: "Mïra ✶" } });
  });
  test("a card in a zTXt chunk is read", () => {
    const r = readCardBytes(png(zTXt("chara", deflateSync(Buffer.from(b64(ODO_V3))))));
    expect(r).toMatchObject({ kind: "card", card: { name: "Odo" } });
  });
  test("V1 card (no spec) and the lorebook forms", () => {
    expect(readCardBytes(bytesOf(V1_CARD))).toMatchObject({ kind: "card", card: { spec: "chara_card_v1", name: "Bran" } });
    const wi = readCardBytes(bytesOf(WORLD_INFO));
    expect(wi.kind).toBe("lorebook");
    if (wi.kind === "lorebook") {
      expect(wi.book.name).toBe("Saltmere Bestiary");
      expect(wi.book.entries.map((e) => [e.id, e.name, e.keys, e.secondaryKeys, e.enabled, e.insertionOrder])).toEqual([
        ["0", "The Kraken", ["kraken"], [], true, 100],
        ["1", "Selkies", ["selkie", "seal"], ["skin"], false, 90],
      ]);
    }
    expect(readCardBytes(bytesOf(LOREBOOK_V3))).toMatchObject({ kind: "lorebook", book: { name: "Clockwork Lore" } });
    expect(readCardBytes(bytesOf(MIRA_V2.data.character_book))).toMatchObject({ kind: "lorebook", book: { name: "Saltmere" } });
  });
  test("content sniffing: cards and lorebooks yes, lore packs and text no", () => {
    expect(looksLikeCard(bytesOf(MIRA_V2))).toBe(true);
    expect(looksLikeCard(bytesOf(WORLD_INFO))).toBe(true);
    expect(looksLikeCard(png())).toBe(true);
    expect(looksLikeCard(bytesOf({ project: { name: "x" }, documents: [] }))).toBe(false);
    expect(looksLikeCard(new TextEncoder().encode("minds: []"))).toBe(false);
  });
});

const withData = (data: Record<string, unknown>) => ({ spec: "chara_card_v2", spec_version: "2.0", data: { ...MIRA_V2.data, ...data } });
const entry = (e: Record<string, unknown>) => withData({ character_book: { entries: [{ keys: ["k"], content: "c", enabled: true, insertion_order: 1, ...e }] } });

describe("malformed cards are refused whole with the problem named", () => {
  const rows: Array<[string, () => Uint8Array, string, string[]]> = [
    ["not JSON", () => new TextEncoder().encode('{"spec": "chara_card_v2",\n  "data": {'), "Invalid character card", ["card: not valid JSON (line 2, column 12)"]],
    ["an unknown spec", () => bytesOf({ spec: "chara_card_v9", data: {} }), "Invalid character card", ['spec: must be chara_card_v2 or chara_card_v3 (got "chara_card_v9")', "data.name: required, a non-empty string"]],
    ["no data", () => bytesOf({ spec: "chara_card_v2", spec_version: "2.0" }), "Invalid character card", ["data: required, an object holding the card's fields", "data.name: required, a non-empty string"]],
    ["a blank name", () => bytesOf(withData({ name: "  " })), "Invalid character card", ["data.name: required, a non-empty string"]],
    ["a wrong type", () => bytesOf(withData({ personality: 5, alternate_greetings: "hi" })), "Invalid character card", ["data.personality: must be a string", "data.alternate_greetings: must be a list of strings"]],
    ["a book without entries", () => bytesOf(withData({ character_book: { name: "x" } })), "Invalid character card", ["data.character_book.entries: required, a list of entries (or World Info's object of entries)"]],
    ["an entry without content", () => bytesOf(entry({ content: undefined })), "Invalid character card", ["data.character_book.entries[0].content: required, a string"]],
    ["bad entry keys and enabled", () => bytesOf(entry({ keys: [1], enabled: "yes" })), "Invalid character card", ["data.character_book.entries[0].enabled: must be true or false", "data.character_book.entries[0].keys: must be a list of strings"]],
    ["two entries with one id", () => bytesOf(withData({ character_book: { entries: [{ keys: [], content: "a", id: 7 }, { keys: [], content: "b", id: 7 }] } })), "Invalid character card", ['data.character_book.entries[1]: same id "7" as data.character_book.entries[0]']],
    ["neither card nor book", () => bytesOf({ hello: 1 }), "Invalid character card", ["card: not a character card (no spec 'chara_card_v2' or 'chara_card_v3') nor a lorebook (no 'entries')"]],
    ["a lorebook with a bad entry", () => bytesOf({ spec: "lorebook_v3", data: { entries: [{ keys: "a", content: 3 }] } }), "Invalid lorebook", ["data.entries[0].content: required, a string"]],
    ["too many entries", () => bytesOf({ entries: Array.from({ length: 10_001 }, () => ({ keys: [], content: "" })) }), "Invalid lorebook", ["entries: at most 10000 entries (this book has 10001)"]],
    ["hostile nesting", () => new TextEncoder().encode("[".repeat(1_000_000)), "Invalid character card", ["card: not valid JSON (or nested too deeply)"]],
    ["not UTF-8", () => new Uint8Array([0x7b, 0xff, 0xfe]), "Invalid character card", ["card: neither a PNG nor UTF-8 JSON text"]],
  ];
  for (const [name, bytes, error, details] of rows) {
    test(name, async () => {
      expect(await apiErrorOf(() => readCardBytes(bytes()))).toEqual({ status: 400, error, details });
    });
  }
});

describe("hostile and broken PNGs are refused without trusting their sizes", () => {
  const hugeLength = () => {
    const c = Buffer.from(tEXt("chara", "x"));
    c.writeUInt32BE(0xfffffff0, 0); // claims ~4 GB
    return Buffer.concat([png().subarray(0, 33), c]);
  };
  const bomb = () => zTXt("chara", deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x41))); // 64 MB of 'A' in ~64 KB
  const rows: Array<[string, () => Uint8Array, string]> = [
    ["no card chunk", () => png(tEXt("Software", "paint")), "png: no character card in this PNG (no 'chara' or 'ccv3' text chunk)"],
    ["truncated", () => png(tEXt("chara", b64(MIRA_V2))).subarray(0, 60), "png: PNG chunk tEXt at byte 33: length "],
    ["a chunk length past the end of the file", hugeLength, "png: PNG chunk tEXt at byte 33: length 4294967280 runs past the end of the file"],
    ["no IEND", () => Buffer.concat([SIG, pngChunk("IHDR", new Uint8Array(13))]), "png: PNG truncated at byte 33 (no IEND chunk)"],
    ["no IHDR first", () => Buffer.concat([SIG, tEXt("chara", b64(MIRA_V2))]), "png: PNG does not start with an IHDR chunk"],
    ["a CRC mismatch on the card chunk", () => png(pngChunk("tEXt", `chara\0${b64(MIRA_V2)}`, 1234)), "png: PNG tEXt chunk 'chara' at byte 33: CRC mismatch (damaged file)"],
    ["a decompression bomb", bomb, "png: PNG text chunk 'chara': inflates to more than 16777216 bytes"],
    ["corrupt compressed text", () => zTXt("chara", Buffer.from("not zlib at all")), "png: PNG text chunk 'chara': corrupt compressed data"],
    ["not base64", () => png(tEXt("chara", "{not base64}")), "png: the 'chara' text chunk is not base64"],
    ["base64 of non-JSON", () => png(tEXt("chara", Buffer.from("hello").toString("base64"))), "png 'chara' chunk: not valid JSON (line 1, column 1)"],
    ["a lorebook inside", () => png(tEXt("chara", b64(LOREBOOK_V3))), "png: the 'chara' text chunk holds a lorebook, not a character card"],
    ["a garbage chunk type", () => Buffer.concat([png().subarray(0, 33), pngChunk("\0\0\0\0", "x")]), "png: PNG chunk at byte 33: invalid chunk type"],
  ];
  for (const [name, bytes, detail] of rows) {
    test(name, async () => {
      const b = bytes();
      const wrapped = b[0] === 0x89 ? b : png(b); // bare chunks go into a valid PNG
      const e = await apiErrorOf(() => readCardBytes(wrapped));
      expect(e.status).toBe(400);
      expect(e.error).toBe("Invalid character card");
      expect(e.details).toHaveLength(1);
      expect(e.details[0].startsWith(detail)).toBe(true);
    });
  }
  test("the bomb is stopped early: memory stays bounded", () => {
    const b = png(zTXt("chara", deflateSync(Buffer.alloc(200 * 1024 * 1024, 0)))); // ~200 KB inflating to 200 MB
    expect(b.length).toBeLessThan(1024 * 1024);
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    expect(() => readCardBytes(b)).toThrow();
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });
});
