import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { JobDetailResponse } from "../../../src/scanner/scannerSchemas.ts";
import { completedScan, TAVERN_FILES, type ScanFixture } from "./scanSupport.ts";

let f: ScanFixture;
let jobId: string;
beforeAll(async () => {
  ({ f, jobId } = await completedScan(TAVERN_FILES));
});
afterAll(() => f.close());

const detail = (query = "") => f.t.call("GET", `/v1/scanner/jobs/${jobId}${query}`, { key: f.w.keys.editor });
const commit = (body: unknown) => f.t.call("POST", "/v1/scanner/commit", { key: f.w.keys.editor, body });

describe("per-group review: job detail", () => {
  test("without the review query the detail form is the spec's, no reviewGroups", async () => {
    const r = await detail();
    expect(r.status).toBe(200);
    expect(r.body.reviewGroups).toBeUndefined();
    expect(r.body.extractions).toHaveLength(4);
  });

  test("groups=true: one entry per group; the same entity across files is one group with each file's extraction", async () => {
    const r = await detail("?groups=true");
    expect(Value.Check(JobDetailResponse, r.body)).toBe(true);
    const byGroup = Object.fromEntries(r.body.reviewGroups.map((g: any) => [g.group, g]));
    const garrick = byGroup["character:garrick"];
    expect(garrick).toMatchObject({ kind: "character", title: "Garrick", count: 2, hiddenCount: 0, hidden: false });
    expect(garrick.sourceFiles).toEqual(["lore/characters/garrick.md", "data/characters.json"]);
    const ids = r.body.extractions.filter((e: any) => e.group === "character:garrick").map((e: any) => e.id);
    expect(garrick.extractionIds).toEqual(ids);
    expect(r.body.reviewGroups.reduce((n: number, g: any) => n + g.count, 0)).toBe(4);
  });

  test("hide: hidden extractions leave the list; a wholly hidden group shows only its counts", async () => {
    const r = await detail("?groups=true&hide=kind:dialogue,folder:lore/places");
    expect(r.status).toBe(200);
    expect(r.body.extractions.map((e: any) => e.kind).sort()).toEqual(["character", "character"]);
    const hidden = r.body.reviewGroups.filter((g: any) => g.hidden);
    expect(hidden).toHaveLength(2);
    for (const g of hidden) {
      expect(g).toMatchObject({ count: 1, hiddenCount: 1 });
      expect(g.extractionIds).toBeUndefined();
    }
  });

  test("knowledgeSuggestions: per character, the tags and location of the scenes it speaks in", async () => {
    const r = await detail("?groups=true");
    expect(r.body.knowledgeSuggestions).toEqual([
      { speaker: "Garrick", scenes: 1, tags: [{ tag: "smugglers", scenes: 1 }], locations: [{ location: "Rusty Tankard", scenes: 1 }] },
      { speaker: "Mira", scenes: 1, tags: [{ tag: "smugglers", scenes: 1 }], locations: [{ location: "Rusty Tankard", scenes: 1 }] },
    ]);
  });

  test.each([["bogus"], ["kind:"], ["colour:red"]])("hide=%s is 400 Invalid request", async (hide) => {
    const r = await detail(`?hide=${encodeURIComponent(hide)}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid request");
  });
});

describe("per-group review: commit", () => {
  test("no ids and no accept selection is 400, as an empty list always was", async () => {
    expect(await commit({ jobId, extractionIds: [] })).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(await commit({ jobId, extractionIds: [], accept: {} })).toMatchObject({ status: 400, body: { error: "Invalid request" } });
    expect(await commit({ jobId, extractionIds: [], accept: { colours: ["red"] } })).toMatchObject({ status: 400 });
  });

  test("a selection that matches nothing is the spec's 400", async () => {
    expect(await commit({ jobId, extractionIds: [], accept: { groups: ["character:nobody"] } })).toMatchObject({
      status: 400,
      body: { error: "No matching extractions found" },
    });
  });

  test("accept a kind, reject a file: the whole kind minus that file's extractions, plus listed ids", async () => {
    const ex = (await detail()).body.extractions;
    const docks = ex.find((e: any) => e.sourceFiles.includes("lore/places/docks.md"));
    const r = await commit({ jobId, extractionIds: [docks.id], accept: { kinds: ["character"] }, reject: { files: ["data/characters.json"] } });
    expect(r.status).toBe(202);
    expect(r.body.committed).toBe(2);
    const names = [];
    for (const id of r.body.documentIds) names.push((await f.t.call("GET", `/v1/lore/documents/${id}`, { key: f.w.keys.editor })).body.document.name);
    expect(names.sort()).toEqual(["Garrick", "The Docks"]);
  });

  test("accept a whole group by name commits each of its extractions once", async () => {
    const r = await commit({ jobId, extractionIds: [], accept: { groups: ["character:garrick"] } });
    expect(r.status).toBe(202);
    expect(r.body.committed).toBe(2);
  });
});
