import { beforeAll, describe, expect, test } from "bun:test";
import { buildWorld, type World } from "../support/world.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import { apiErrorOf, dumpDb, newCtx, type TestCtx } from "./helpers.ts";

/**
 * Invalid packs are refused whole: 400 "Invalid lore pack" with every problem
 * as "path: reason", and not one row written. "into" says whether the pack
 * goes into the test world's project (whose rows it may reference) or creates
 * its own project.
 */
interface Scenario {
  name: string;
  pack?: unknown;
  /** file text instead of a pack object */
  text?: string;
  file?: string;
  into: "world" | "new";
  details: unknown[];
}

const mind = (key: string, extra: Record<string, unknown> = {}) => ({ key, entityName: key, personality: "Plain.", ...extra });
const BUILT_INS = "FRIEND, RIVAL, MENTOR, STUDENT, FAMILY, ROMANTIC, ALLY, ENEMY, EMPLOYER, EMPLOYEE, NEUTRAL";

const scenarios: Scenario[] = [
  {
    name: "unknown knowledge tag and unknown document tag",
    into: "world",
    pack: {
      tags: [{ name: "fresh" }],
      minds: [mind("a"), mind("b"), mind("c", { knowledgeTags: ["fresh", "tavern", "x"] })],
      documents: [{ key: "d", name: "D", content: "", tags: ["nope", "history"] }],
    },
    details: ["minds[2].knowledgeTags[2]: unknown tag 'x'", "documents[0].tags[0]: unknown tag 'nope'"],
  },
  {
    name: "unknown location (mind, document) and unknown document (location)",
    into: "world",
    pack: {
      locations: [{ key: "l", name: "L", document: "ghost-doc" }],
      minds: [mind("a", { location: "atlantis" }), mind("b", { location: "docks" })],
      documents: [{ key: "d", name: "D", content: "x", location: "nowhere" }],
    },
    details: [
      "locations[0].document: unknown document 'ghost-doc'",
      "minds[0].location: unknown location 'atlantis'",
      "documents[0].location: unknown location 'nowhere'",
    ],
  },
  {
    name: "unknown mind and unknown custom type in a relationship",
    into: "world",
    pack: { relationships: [{ from: "garrick", to: "ghost", type: "FRIEND" }, { from: "elena", to: "garrick", customType: "frenemy" }] },
    details: ["relationships[0].to: unknown mind 'ghost'", "relationships[1].customType: unknown relationship type 'frenemy'"],
  },
  {
    name: "both type and customType",
    into: "world",
    pack: { relationships: [{ from: "garrick", to: "elena", type: "FRIEND", customType: "sworn" }] },
    details: ["relationships[0]: give either type (a built-in type) or customType (a custom type's key), not both"],
  },
  {
    name: "neither type nor customType",
    into: "world",
    pack: { relationships: [{ from: "garrick", to: "elena", description: "Something" }] },
    details: ["relationships[0]: give type (a built-in type) or customType (a custom type's key)"],
  },
  {
    name: "not a built-in type",
    into: "world",
    pack: { relationships: [{ from: "garrick", to: "elena", type: "friend" }] },
    details: [`relationships[0].type: must be one of ${BUILT_INS}`],
  },
  {
    name: "duplicate keys and tag names",
    into: "new",
    pack: {
      project: { name: "P" },
      tags: [{ name: "t" }, { name: "t", color: "#000000" }],
      minds: [mind("a"), mind("a")],
      documents: [{ key: "y", name: "Y", content: "1" }, { key: "y", name: "Y2", content: "2" }],
      relationships: [{ key: "r", from: "a", to: "a2", type: "ALLY" }, { key: "r", from: "a", to: "a3", type: "ALLY" }],
    },
    details: [
      "tags[1].name: duplicate tag 't'",
      "minds[1].key: duplicate key 'a'",
      "relationships[0].to: unknown mind 'a2'",
      "relationships[1].key: duplicate key 'r'",
      "documents[1].key: duplicate key 'y'",
    ],
  },
  {
    name: "missing required fields",
    into: "world",
    pack: {
      tags: [{ color: "#000000" }],
      locations: [{ key: "l" }],
      relationshipTypes: [{ key: "t", name: "T" }],
      minds: [{ key: "m", entityName: "M" }, { entityName: "No key", personality: "p" }],
      relationships: [{ to: "garrick", type: "FRIEND" }],
      documents: [{ key: "d", name: "D" }],
    },
    details: [
      "tags[0].name: required",
      "locations[0].name: required",
      "relationshipTypes[0].color: required",
      "minds[0].personality: required",
      "minds[1].key: required",
      "relationships[0].from: required",
      "documents[0].content: required",
    ],
  },
  {
    name: "wrong types",
    into: "world",
    pack: {
      settings: { longTermMemoryEnabled: "yes" },
      tags: "tavern",
      relationshipTypes: [{ key: "t", name: "T", color: "#000000", isSymmetric: "yes", conflictsWithCustom: "sworn" }],
      minds: [mind("m", { hints: "be nice", restrictions: ["ok", 7, "  "], entityName: 42, responseConfig: { maxTokens: 1.5, temperature: "hot", verbosity: "loud", maxSentences: 0 } })],
      documents: [{ key: 5, name: "D", secret: "yes", content: ["x"] }],
      relationships: {},
    },
    details: [
      "settings.longTermMemoryEnabled: must be true or false",
      "tags: must be a list",
      "relationshipTypes[0].isSymmetric: must be true or false",
      "relationshipTypes[0].conflictsWithCustom: must be a list",
      "minds[0].entityName: must be a non-empty string",
      "minds[0].hints: must be a list",
      "minds[0].restrictions[1]: must be a non-empty line or {text, when}",
      "minds[0].restrictions[2]: must be a non-empty string",
      "minds[0].responseConfig.verbosity: must be one of terse, balanced, verbose",
      "minds[0].responseConfig.maxTokens: must be an integer from 1 to 2048",
      "minds[0].responseConfig.temperature: must be a number from 0 to 2",
      "minds[0].responseConfig.maxSentences: must be an integer from 1 to 12",
      "relationships: must be a list",
      "documents[0].key: must be a key: a non-empty, one-line string without surrounding spaces",
      "documents[0].secret: must be true or false",
      "documents[0].content: must be a string",
    ],
  },
  {
    name: "bad colours",
    into: "world",
    pack: {
      tags: [{ name: "red", color: "red" }, { name: "short", color: "#abc" }],
      relationshipTypes: [{ key: "t", name: "T", color: "#GGGGGG" }],
    },
    details: [
      "tags[0].color: must be a colour like #aa5500",
      "tags[1].color: must be a colour like #aa5500",
      "relationshipTypes[0].color: must be a colour like #aa5500",
    ],
  },
  {
    name: "unknown fields, with the likely intended one",
    into: "world",
    pack: {
      mind: [],
      minds: [mind("m", { knowledgetags: ["tavern"], mood: "grumpy" })],
      documents: [{ key: "d", name: "D", content: "x", status: "COMPLETED" }],
    },
    details: [
      "minds[0].knowledgetags: unknown field (did you mean 'knowledgeTags'?)",
      "minds[0].mood: unknown field (known: key, entityName, personality, backstory, backstorySummary, role, speakingStyle, hints, restrictions, location, knowledgeTags, knowledge, knowledgeDescription, responseConfig, behaviour)",
      "documents[0].status: unknown field (known: key, name, tags, location, when, sticky, cooldown, delay, secret, reveal, content)",
      "mind: unknown field (did you mean 'minds'?)",
    ],
  },
  {
    name: "a relationship from a mind to itself",
    into: "world",
    pack: { minds: [mind("solo")], relationships: [{ from: "solo", to: "solo", type: "FRIEND" }, { from: "garrick", to: "garrick", customType: "sworn" }] },
    details: ["relationships[0].to: a relationship joins two different minds", "relationships[1].to: a relationship joins two different minds"],
  },
  {
    name: "unknown inverse type, unknown conflicting custom type, unknown built-in",
    into: "world",
    pack: {
      relationshipTypes: [
        { key: "patron", name: "Patron", color: "#111111", inverse: "client" },
        { key: "rival-guild", name: "Rival Guild", color: "#222222", inverse: "debtor", conflictsWithCustom: ["patron", "sworn", "ghost"], conflictsWithBuiltIn: ["FRIEND", "BESTIE"] },
      ],
    },
    details: [
      "relationshipTypes[0].inverse: unknown relationship type 'client'",
      `relationshipTypes[1].conflictsWithBuiltIn[1]: must be one of ${BUILT_INS}`,
      "relationshipTypes[1].conflictsWithCustom[2]: unknown relationship type 'ghost'",
    ],
  },
  {
    name: "a custom type name already used by another type of the project, or twice in the pack",
    into: "world",
    pack: {
      relationshipTypes: [
        { key: "enemy2", name: "Sworn Enemy", color: "#111111" },
        { key: "debtor", name: "Debtor", color: "#00ff00" }, // the existing type itself: fine
        { key: "x", name: "Twin", color: "#111111" },
        { key: "y", name: "Twin", color: "#111111" },
      ],
    },
    details: ["relationshipTypes[0].name: 'Sworn Enemy' is already the name of relationship type 'sworn'", "relationshipTypes[3].name: 'Twin' is already the name of relationship type 'x'"],
  },
  {
    name: "two key-less relationships of the same kind between the same minds",
    into: "world",
    pack: { relationships: [{ from: "garrick", to: "elena", type: "FRIEND" }, { from: "garrick", to: "elena", type: "FRIEND", description: "again" }] },
    details: ["relationships[1]: duplicate relationship 'garrick->elena:FRIEND' (give the relationships keys to have several of one kind)"],
  },
  {
    name: "YAML syntax error, with its line",
    into: "new",
    file: "broken.yaml",
    text: "project:\n  name: Broken\nminds:\n  - key: a\n    entityName: [unclosed\n    personality: x\n",
    details: ["broken.yaml:6: Flow sequence in block collection must be sufficiently indented and end with a ]"],
  },
  {
    name: "YAML duplicate mapping key, with its line",
    into: "new",
    file: "dupe.yml",
    text: "project: { name: Dupe }\nminds:\n  - key: a\n    entityName: A\n    key: b\n    personality: x\n",
    details: ["dupe.yml:5: Map keys must be unique"],
  },
  {
    name: "JSON syntax error, with its line",
    into: "new",
    file: "broken.json",
    text: '{\n  "project": { "name": "J" },\n  "tags": [\n    { "name": "a" },\n  ]\n}\n',
    // the reason is the JavaScript engine's; the line is ours
    details: [expect.stringMatching(/^broken\.json:5: \S/)],
  },
  {
    name: "settings out of range or unknown",
    into: "world",
    pack: { settings: { maxSessionLength: 0, maxSessionTokens: 99_999_999, projectName: "Renamed" } },
    details: [
      "settings.maxSessionLength: must be an integer from 1 to 1000",
      "settings.maxSessionTokens: must be an integer from 100 to 10000000",
      "settings.projectName: unknown field (known: longTermMemoryEnabled, maxSessionLength, maxSessionTokens, enhancedMemoryRetrieval)",
    ],
  },
  {
    name: "a list at the root",
    into: "world",
    text: "- key: a\n- key: b\n",
    file: "list.yaml",
    details: ["pack: must be an object (a mapping with project, settings, state, tags, locations, relationshipTypes, minds, relationships, documents, tests, events)"],
  },
  {
    name: "an empty file",
    into: "world",
    text: "# nothing here\n",
    file: "empty.yaml",
    details: ["pack: must be an object (a mapping with project, settings, state, tags, locations, relationshipTypes, minds, relationships, documents, tests, events)"],
  },
  {
    name: "no project name when the import creates the project",
    into: "new",
    pack: { minds: [mind("a")] },
    details: ["project: required when importing without a project id: project.name names the new project"],
  },
  {
    name: "blank names and keys with surrounding spaces",
    into: "new",
    pack: { project: { name: "  " }, tags: [{ name: " spaced" }], minds: [mind("a ", { entityName: "   " })], documents: [{ key: "d", name: "", content: "x", tags: ["spaced"] }] },
    details: [
      "project.name: must be a non-empty string",
      "tags[0].name: must be a tag name: a non-empty, one-line string without surrounding spaces",
      "minds[0].key: must be a key: a non-empty, one-line string without surrounding spaces",
      "minds[0].entityName: must be a non-empty string",
      "documents[0].name: must be a non-empty string",
      "documents[0].tags[0]: unknown tag 'spaced'",
    ],
  },
  {
    name: "too long and too many",
    into: "world",
    pack: { minds: [mind("a", { entityName: "n".repeat(201), hints: Array.from({ length: 101 }, (_, i) => `hint ${i}`) })] },
    details: ["minds[0].entityName: at most 200 characters", "minds[0].hints: at most 100 items"],
  },
  {
    name: "every problem of a pack at once",
    into: "new",
    pack: {
      project: { name: "Many" },
      tags: [{ name: "ok", colour: "#000000" }],
      minds: [mind("a", { knowledgeTags: ["ok", "missing"] }), mind("b", { location: "nowhere" })],
      relationships: [{ from: "a", to: "b", type: "FRIEND", customType: "c" }, { from: "a", to: "zed", type: "ALLY" }],
      documents: [{ key: "d", name: "D", content: "x", tags: ["history", "lost"] }],
    },
    details: [
      "tags[0].colour: unknown field (did you mean 'color'?)",
      "minds[0].knowledgeTags[1]: unknown tag 'missing'",
      "minds[1].location: unknown location 'nowhere'",
      "relationships[0]: give either type (a built-in type) or customType (a custom type's key), not both",
      "relationships[0].customType: unknown relationship type 'c'",
      "relationships[1].to: unknown mind 'zed'",
      "documents[0].tags[1]: unknown tag 'lost'",
    ],
  },
];

let ctx: TestCtx;
let world: World;
beforeAll(() => {
  ctx = newCtx();
  world = buildWorld(ctx);
});

describe("invalid packs are refused whole", () => {
  test("the table is big enough", () => expect(scenarios.length).toBeGreaterThanOrEqual(15));

  for (const s of scenarios) {
    test(s.name, async () => {
      const before = dumpDb(ctx);
      const err = await apiErrorOf(() => {
        const pack = s.text !== undefined ? parsePackText(s.text, s.file!) : s.pack;
        return importPack(ctx, pack, s.into === "world" ? { projectId: world.projectId } : {});
      });
      expect(err.status).toBe(400);
      expect(err.error).toBe("Invalid lore pack");
      expect(err.details as unknown[]).toEqual(s.details);
      expect(dumpDb(ctx)).toBe(before);
    });
  }

  test("a failure while writing (after validation) rolls everything back", async () => {
    const before = dumpDb(ctx);
    // A trigger stands in for any write failing half-way: the first minds are written, then this one fails.
    ctx.db.exec("CREATE TEMP TRIGGER fail_mind BEFORE INSERT ON entity_minds WHEN new.key = 'boom' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    try {
      expect(() =>
        importPack(ctx, { project: { name: "Half" }, tags: [{ name: "new-tag" }], minds: [mind("fine"), mind("boom")] }),
      ).toThrow("disk on fire");
      expect(() => importPack(ctx, { minds: [mind("fine2"), mind("boom")] }, { projectId: world.projectId })).toThrow("disk on fire");
    } finally {
      ctx.db.exec("DROP TRIGGER fail_mind");
    }
    expect(dumpDb(ctx)).toBe(before);
  });
});
