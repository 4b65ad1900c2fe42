import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { exportPack } from "../../src/packs/exportPack.ts";
import { importPath, parsePackText } from "../../src/packs/importPack.ts";
import { PackSchema, packJsonSchema } from "../../src/packs/packSchema.ts";
import { BUILT_IN_TYPES } from "../../src/lore/relationships/builtInTypes.ts";
import { DEFAULT_TAGS } from "../../src/projects/defaults.ts";
import { countRows, DEMO_PACK, newCtx } from "./helpers.ts";

describe("examples/thornhaven.yaml", async () => {
  const ctx = newCtx();
  const r = await importPath(ctx, DEMO_PACK);
  const pack = exportPack(ctx, r.projectId);
  const minds = pack.minds!;
  const docs = pack.documents!;

  test("imports cleanly, with the promised amounts of lore", () => {
    expect(pack.project!.name).toBe("Thornhaven");
    expect(Value.Check(PackSchema, pack)).toBe(true);
    const counts = countRows(ctx, r.projectId);
    expect(counts.minds).toBeGreaterThanOrEqual(6);
    expect(counts.documents).toBeGreaterThanOrEqual(12);
    expect(counts.locations).toBeGreaterThanOrEqual(4);
    expect(counts.relationships).toBeGreaterThanOrEqual(6);
    const customTypesUsed = new Set(pack.relationships!.flatMap((rel) => rel.customType ?? []));
    expect(customTypesUsed.size).toBeGreaterThanOrEqual(2);
    expect(pack.relationshipTypes!.find((t) => t.key === "owes-debt")!.inverse).toBe("holds-debt");
  });

  test("documents are real prose of 150–400 words, each placed and tagged", () => {
    for (const d of docs) {
      const words = d.content.split(/\s+/).filter(Boolean).length;
      expect({ key: d.key, ok: words >= 150 && words <= 400 }).toEqual({ key: d.key, ok: true });
      expect(d.tags!.length).toBeGreaterThan(0);
    }
  });

  test("minds are distinct characters with hints and restrictions", () => {
    for (const field of ["entityName", "personality", "speakingStyle", "role"] as const) {
      expect(new Set(minds.map((m) => m[field])).size).toBe(minds.length);
    }
    for (const m of minds) {
      expect(m.hints!.length).toBeGreaterThan(0);
      expect(m.restrictions!.length).toBeGreaterThan(0);
      expect(m.knowledgeTags!.length).toBeGreaterThan(0);
      expect(m.location).toBeDefined();
    }
  });

  test("knowledge tags give minds different lore: only the smuggler sees the tunnel, only the prior the abbey secret", () => {
    const visible = (mindKey: string) => {
      const tags = new Set(minds.find((m) => m.key === mindKey)!.knowledgeTags);
      return docs.filter((d) => d.tags!.some((t) => tags.has(t))).map((d) => d.key);
    };
    const whoSees = (docKey: string) => minds.filter((m) => visible(m.key).includes(docKey)).map((m) => m.key);
    expect(whoSees("smugglers-tunnel")).toEqual(["mara"]);
    expect(whoSees("reliquary-secret")).toEqual(["brother-aldous"]);
    expect(whoSees("night-barges")).toEqual(["mara", "tobias-crane"]); // river-trade also opens it
    // no two minds see the same lore
    const sets = minds.map((m) => visible(m.key).join(","));
    expect(new Set(sets).size).toBe(minds.length);
    // every custom tag is used by lore and known by someone
    for (const t of pack.tags!.map((x) => x.name).filter((n) => !(DEFAULT_TAGS as readonly string[]).includes(n))) {
      expect({ t, docs: docs.some((d) => d.tags!.includes(t)), minds: minds.some((m) => m.knowledgeTags!.includes(t)) }).toEqual({ t, docs: true, minds: true });
    }
  });

  test("relationships use built-in and custom types", () => {
    for (const rel of pack.relationships!) {
      if (rel.type) expect(BUILT_IN_TYPES).toContain(rel.type);
      else expect(pack.relationshipTypes!.map((t) => t.key)).toContain(rel.customType!);
    }
  });
});

describe("examples/lore-pack.schema.json", () => {
  test("is PackSchema (regenerate: bun -e 'import {packJsonSchema} from \"./src/packs/packSchema.ts\"; await Bun.write(\"examples/lore-pack.schema.json\", packJsonSchema())')", async () => {
    const file = await Bun.file(new URL("../../examples/lore-pack.schema.json", import.meta.url).pathname).text();
    expect(file).toBe(packJsonSchema());
  });

  test("the demo file as written validates against it", async () => {
    const parsed = parsePackText(await Bun.file(DEMO_PACK).text(), "thornhaven.yaml");
    expect(Value.Check(PackSchema, parsed)).toBe(true);
  });
});
