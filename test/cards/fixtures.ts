import { deflateSync } from "node:zlib";

/**
 * Hand-written cards and lorebooks following the published specs:
 * Character Card V2 (github.com/malfoyslastname/character-card-spec-v2),
 * V3 (github.com/kwaroran/character-card-spec-v3) and SillyTavern's World
 * Info export. PNGs are built here with node:zlib and Bun's CRC-32, not with
 * the code under test.
 */

export const MIRA_V2 = {
  spec: "chara_card_v2",
  spec_version: "2.0",
  data: {
    name: "Mira Ashgrove",
    description: "{{char}} keeps the lighthouse of Saltmere. She lost her brother to the Drowned Fleet.",
    personality: "Watchful, dry-humoured, protective of sailors.",
    scenario: "{{user}} arrives at the lighthouse during a storm.",
    first_mes: "*Mira lifts the lantern.* Another one washed in by the storm?",
    mes_example: "<START>\n{{user}}: Who are you?\n{{char}}: The one who keeps you off the rocks.",
    creator_notes: "Works best with short replies.",
    system_prompt: "Speak in short, weathered sentences.\n{{original}}",
    post_history_instructions: "Never reveal where the Fleet's gold is hidden.",
    alternate_greetings: ["The lamp needs oil. Hand me that can."],
    tags: ["fantasy", "lighthouse"],
    creator: "lorehold-tests",
    character_version: "1.2",
    extensions: { talkativeness: "0.5" },
    character_book: {
      name: "Saltmere",
      scan_depth: 4,
      token_budget: 512,
      recursive_scanning: false,
      extensions: {},
      entries: [
        {
          keys: ["Drowned Fleet", "fleet"],
          content: "The Drowned Fleet are ghost ships that rise from the bay on moonless nights, crewed by the lost.",
          extensions: {},
          enabled: true,
          insertion_order: 10,
          case_sensitive: false,
          name: "The Drowned Fleet",
          priority: 10,
          id: 1,
          comment: "ghosts",
          selective: true,
          secondary_keys: ["ghost", "ships"],
          constant: false,
          position: "before_char",
        },
        {
          keys: ["lighthouse", "lamp"],
          content: "The Saltmere lighthouse burns whale oil; its lamp has not gone dark in ninety years.",
          extensions: {},
          enabled: true,
          insertion_order: 20,
          id: 2,
          comment: "Saltmere Lighthouse",
        },
        {
          keys: [],
          content: "Saltmere is a fishing town on a cold northern coast.",
          extensions: {},
          enabled: true,
          insertion_order: 0,
          id: 3,
          constant: true,
        },
        {
          keys: ["smugglers"],
          content: "The harbour master takes bribes from smugglers.",
          extensions: {},
          enabled: false,
          insertion_order: 30,
          id: 4,
          name: "Smugglers",
        },
      ],
    },
  },
};

export const ODO_V3 = {
  spec: "chara_card_v3",
  spec_version: "3.0",
  data: {
    name: "Odo",
    description: "A retired clockmaker.",
    personality: "Patient and precise.",
    scenario: "",
    first_mes: "Tick, tock.",
    mes_example: "",
    creator_notes: "",
    system_prompt: "",
    post_history_instructions: "",
    alternate_greetings: [],
    group_only_greetings: [],
    tags: [],
    creator: "",
    character_version: "",
    extensions: {},
    nickname: "Old Odo",
    creation_date: 1700000000,
    assets: [{ type: "icon", uri: "ccdefault:", name: "main", ext: "png" }],
    character_book: {
      extensions: {},
      entries: [
        {
          keys: ["escapement"],
          content: "@@depth 4\n@@role system\nAn escapement is the heart of every clock Odo ever built.",
          extensions: {},
          enabled: true,
          insertion_order: 1,
          use_regex: false,
          id: "esc",
        },
      ],
    },
  },
};

export const V1_CARD = {
  name: "Bran",
  description: "A ferryman.",
  personality: "",
  scenario: "",
  first_mes: "Fare, please.",
  mes_example: "",
};

/** SillyTavern's World Info export: entries keyed by uid, `key`/`keysecondary`/`disable`/`order`. */
export const WORLD_INFO = {
  name: "Saltmere Bestiary",
  entries: {
    "0": {
      uid: 0, key: ["kraken"], keysecondary: [], comment: "The Kraken", content: "A kraken sleeps under Saltmere bay; its waking drowns ships.",
      constant: false, selective: true, selectiveLogic: 0, order: 100, position: 0, disable: false, addMemo: true, excludeRecursion: false,
      probability: 100, useProbability: true, depth: 4, group: "",
    },
    "1": {
      uid: 1, key: ["selkie", "seal"], keysecondary: ["skin"], comment: "Selkies", content: "Selkies shed their seal skins on the rocks at midsummer.",
      constant: false, selective: true, selectiveLogic: 0, order: 90, position: 0, disable: true, addMemo: true, excludeRecursion: false,
      probability: 100, useProbability: true, depth: 4, group: "",
    },
  },
};

export const LOREBOOK_V3 = {
  spec: "lorebook_v3",
  data: {
    name: "Clockwork Lore",
    extensions: {},
    entries: [{ keys: ["mainspring"], content: "A mainspring stores the clock's power.", extensions: {}, enabled: true, insertion_order: 1, use_regex: false }],
  },
};

export const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), "utf8").toString("base64");

/** A PNG chunk with its CRC (Bun's CRC-32). */
export function pngChunk(type: string, data: Uint8Array | string, crc?: number): Uint8Array {
  const body = typeof data === "string" ? Buffer.from(data, "latin1") : data;
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, "latin1");
  Buffer.from(body).copy(out, 8);
  out.writeUInt32BE(crc ?? Bun.hash.crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

export const SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A 2×2 grey PNG with the given extra chunks between IHDR and IDAT. */
export function png(...extra: Uint8Array[]): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const idat = deflateSync(Buffer.from([0, 128, 128, 0, 128, 128]));
  return Buffer.concat([SIG, pngChunk("IHDR", ihdr), ...extra, pngChunk("IDAT", idat), pngChunk("IEND", new Uint8Array(0))]);
}

export const tEXt = (keyword: string, text: string) => pngChunk("tEXt", `${keyword}\0${text}`);
export const zTXt = (keyword: string, data: Uint8Array) => pngChunk("zTXt", Buffer.concat([Buffer.from(`${keyword}\0\0`, "latin1"), data]));
export const iTXt = (keyword: string, text: string, compress: boolean) =>
  pngChunk("iTXt", Buffer.concat([Buffer.from(`${keyword}\0${compress ? "\x01" : "\x00"}\0en\0\0`, "latin1"), compress ? deflateSync(Buffer.from(text, "utf8")) : Buffer.from(text, "utf8")]));

export const bytesOf = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
