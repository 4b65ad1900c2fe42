import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { exportPack, serializePack } from "../../src/packs/exportPack.ts";
import { importPack, parsePackText } from "../../src/packs/importPack.ts";
import { PackSchema } from "../../src/packs/packSchema.ts";
import { readStateSchema } from "../../src/state/stateService.ts";
import type { StateSchema } from "../../src/state/stateSchema.ts";
import { apiErrorOf, newCtx } from "../packs/helpers.ts";

const STATE: StateSchema = {
  stateKeys: {
    "faction.watch": { type: "string", enum: ["friendly", "hostile", "neutral"], default: "neutral" },
    "pose.sitting": { type: "boolean" },
    "quest.flood.stage": { type: "number", default: 0 },
  },
  exclusiveGroups: ["pose"],
};

describe("a pack's state section", () => {
  test("imports, exports (YAML and JSON) and imports again unchanged", () => {
    const ctx = newCtx();
    const { projectId } = importPack(ctx, { project: { name: "Stateful" }, state: STATE });
    expect(readStateSchema(ctx, projectId)).toEqual(STATE);
    const pack = exportPack(ctx, projectId);
    expect(Value.Check(PackSchema, pack)).toBe(true);
    expect(pack.state).toEqual(STATE as typeof pack.state);
    for (const format of ["yaml", "json"] as const) {
      const again = newCtx();
      const r = importPack(again, parsePackText(serializePack(pack, format), `p.${format}`));
      expect(readStateSchema(again, r.projectId)).toEqual(STATE);
      expect(exportPack(again, r.projectId)).toEqual(pack);
    }
  });
  test("re-importing the same section writes nothing; a pack without one leaves the declarations alone; a new section replaces them", () => {
    const ctx = newCtx();
    const { projectId } = importPack(ctx, { project: { name: "Stateful" }, state: STATE });
    const at = () => ctx.db.query<{ updated_at: string }, [string]>("SELECT updated_at FROM state_schema WHERE project_id = ?").get(projectId)!.updated_at;
    const first = at();
    ctx.clock.advance(60_000);
    importPack(ctx, { state: STATE }, { projectId });
    expect(at()).toBe(first);
    importPack(ctx, { tags: [{ name: "extra" }] }, { projectId });
    expect(readStateSchema(ctx, projectId)).toEqual(STATE);
    importPack(ctx, { state: { stateKeys: { weather: { type: "string" } } } }, { projectId });
    expect(readStateSchema(ctx, projectId)).toEqual({ stateKeys: { weather: { type: "string" } }, exclusiveGroups: [] });
  });
  test("a project without declarations exports no state section", () => {
    const ctx = newCtx();
    const { projectId } = importPack(ctx, { project: { name: "Plain" } });
    expect("state" in exportPack(ctx, projectId)).toBe(false);
  });
  test("an invalid section is refused whole with every problem, and nothing is written", async () => {
    const ctx = newCtx();
    const bad = {
      project: { name: "Broken" },
      state: {
        stateKeys: { "Bad.Key": { type: "number" }, "a.b": { type: "date" }, "c.d": { type: "number", default: "x" }, "e.f": { type: "string", enum: ["a"], default: "b" } },
        exclusiveGroups: ["pose", "pose.hand"],
      },
    };
    const e = await apiErrorOf(() => importPack(ctx, bad));
    expect(e).toMatchObject({ status: 400, error: "Invalid lore pack" });
    expect(e.details).toEqual([
      "state.stateKeys.Bad.Key: is not a state key: lower-case dotted names such as quest.flood.stage",
      "state.stateKeys.a.b.type: must be one of boolean, number, string",
    ]);
    // Shape first; the schema's own rules on a well-shaped section.
    const e2 = await apiErrorOf(() => importPack(ctx, { project: { name: "Broken" }, state: { stateKeys: { "c.d": { type: "number", default: "x" }, "e.f": { type: "string", enum: ["a"], default: "b" } }, exclusiveGroups: ["pose", "pose.hand"] } }));
    expect(e2.details).toEqual([
      "state.stateKeys.c.d.default: must be a number, as declared",
      "state.stateKeys.e.f.default: must be one of the enum's values",
      "state.exclusiveGroups[1]: 'pose.hand' lies inside group 'pose': groups do not nest",
    ]);
    expect(ctx.db.query("SELECT COUNT(*) AS n FROM projects").get()).toEqual({ n: 0 });
  });
});
