import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { asStudio, signIn } from "./studioSupport.ts";
import { completedScan, runWorker, submitAndUpload, TAVERN_FILES, type ScanFixture } from "../scanner/service/scanSupport.ts";

let f: ScanFixture;
let token: string;
let jobId: string;
const files = [
  ...TAVERN_FILES,
  { path: "CHANGELOG.md", data: "# Changelog\n\n## 1.0\n- Fixed the tavern door.\n" },
  { path: "addons/dialogue_tool/plugin.md", data: "# Plugin\n\nThe dialogue tool's editor plugin documentation for the engine.\n" },
];
const call = (method: string, path: string, body?: unknown) => f.t.call(method, `/admin/v1${path}`, { key: token, body });
const review = (body: unknown = {}, project = f.w.projectId, id = jobId) => call("POST", `/projects/${project}/scan-jobs/${id}/review-groups`, body);

beforeAll(async () => {
  ({ f, jobId } = await completedScan(files));
  token = ensureAdminToken(f.t.app.db).adminToken;
});
afterAll(() => f.close());

const byGroup = (body: any) => Object.fromEntries(body.groups.map((g: any) => [g.group, g]));

describe("POST /admin/v1/projects/:id/scan-jobs/:jobId/review-groups", () => {
  test("groups with counts and ids, open work first; kinds, folders and files to act on; skipped content by reason", async () => {
    const r = await review();
    expect(r.status).toBe(200);
    expect(r.body.totals).toEqual({ extractions: 4, hidden: 0, committed: 0, open: 4, groups: 3 });
    expect(r.body.groups.map((g: any) => [g.group, g.kind, g.title, g.count])).toEqual([
      ["scene:dialogue/tavern.yarn#tavern", "dialogue", "Tavern", 1],
      ["character:garrick", "character", "Garrick", 2],
      ["location:the-docks", "location", "The Docks", 1],
    ]);
    const g = byGroup(r.body)["character:garrick"];
    expect(g).toMatchObject({ hiddenCount: 0, hidden: false, committedCount: 0, sourceFiles: ["lore/characters/garrick.md", "data/characters.json"] });
    expect(g.extractionIds).toHaveLength(2);
    expect(byGroup(r.body)["scene:dialogue/tavern.yarn#tavern"].speakers).toEqual(["Garrick", "Mira"]);
    expect(r.body.kinds.map((k: any) => [k.name, k.count])).toEqual([["character", 2], ["dialogue", 1], ["location", 1]]);
    expect(r.body.folders.map((k: any) => [k.name, k.count])).toEqual([["data", 1], ["dialogue", 1], ["lore", 2], ["lore/characters", 1], ["lore/places", 1]]);
    expect(r.body.files.map((k: any) => k.name)).toEqual(["data/characters.json", "dialogue/tavern.yarn", "lore/characters/garrick.md", "lore/places/docks.md"]);
    expect(r.body.skipped.map((s: any) => [s.include, s.files, s.entries[0].sourceFile])).toEqual([
      ["changelog", 1, "CHANGELOG.md"],
      ["engine", 1, "addons/"],
    ]);
  });

  test("knowledge suggestions are matched to the minds of the same name: the tags a mind still lacks", async () => {
    const r = await review();
    const [garrick, mira] = r.body.knowledgeSuggestions;
    expect(garrick).toMatchObject({ speaker: "Garrick", scenes: 1, mind: { id: f.w.minds.garrick, entityName: "Garrick", knowledgeTags: ["tavern", "town-history"] }, newTags: ["smugglers"] });
    expect(garrick.tags).toEqual([{ tag: "smugglers", scenes: 1, exists: true, known: false }]);
    expect(mira).toMatchObject({ speaker: "Mira", mind: null, newTags: ["smugglers"] });
  });

  test.each([
    ["a kind and a folder", { kinds: ["dialogue"], folders: ["lore/places"] }, ["scene:dialogue/tavern.yarn#tavern", "location:the-docks"], 2],
    ["a whole group", { groups: ["character:garrick"] }, ["character:garrick"], 2],
    ["a file (one of a group's two)", { files: ["data/characters.json"] }, [], 1],
    ["a folder with a trailing slash", { folders: ["lore/"] }, ["location:the-docks"], 2],
  ])("hide %s: hidden groups show only counts and sink to the end", async (_, hide, hiddenGroups, hiddenCount) => {
    const r = await review({ hide });
    expect(r.status).toBe(200);
    expect(r.body.totals.hidden).toBe(hiddenCount);
    const hidden = r.body.groups.filter((g: any) => g.hidden);
    expect(hidden.map((g: any) => g.group).sort()).toEqual([...hiddenGroups].sort());
    for (const g of hidden) expect(g.extractionIds).toBeUndefined();
    const firstHidden = r.body.groups.findIndex((g: any) => g.hidden);
    if (firstHidden >= 0) expect(r.body.groups.slice(firstHidden).every((g: any) => g.hidden)).toBe(true);
  });

  test("hiding the dialogue leaves no knowledge suggestion: rejected scenes teach nobody", async () => {
    expect((await review({ hide: { kinds: ["dialogue"] } })).body.knowledgeSuggestions).toEqual([]);
  });

  test.each([
    ["kind", { kind: "character" }, ["character:garrick"]],
    ["minConfidence", { minConfidence: 0.96 }, ["scene:dialogue/tavern.yarn#tavern"]],
    ["search in a source file", { search: "CHARACTERS.json" }, ["character:garrick"]],
    ["search in a title", { search: "docks" }, ["location:the-docks"]],
    ["a page", { limit: 1, offset: 1 }, ["character:garrick"]],
    ["openOnly with everything hidden but the docks", { openOnly: true, hide: { kinds: ["character", "dialogue"] } }, ["location:the-docks"]],
  ])("filter by %s", async (_, body, groups) => {
    const r = await review(body);
    expect(r.status).toBe(200);
    expect(r.body.groups.map((g: any) => g.group)).toEqual(groups);
  });

  test.each([
    ["an unknown selector", { hide: { colours: ["red"] } }, null],
    ["a selector that is not a list", { hide: { groups: "character:garrick" } }, null],
    ["an unknown kind to hide", { hide: { kinds: ["dialogue", "spell"] } }, "hide.kinds[1]: unknown kind 'spell' (character, location, item, faction, event, dialogue, other)"],
    ["an unknown kind filter", { kind: "spell" }, "kind: unknown kind 'spell' (character, location, item, faction, event, dialogue, other)"],
    ["a confidence over 1", { minConfidence: 1.5 }, null],
    ["a zero limit", { limit: 0 }, null],
    ["an unknown field", { colour: "red" }, null],
  ])("400 Invalid request for %s", async (_, body, detail) => {
    const r = await review(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid request");
    if (detail) expect(r.body.details).toEqual([detail]);
  });

  test.each([
    ["an unknown job", () => review({}, f.w.projectId, "scan_nope"), 404, "Job not found"],
    ["another project's job (the scanner's rule)", () => review({}, f.other.projectId, jobId), 403, "Access denied"],
    ["an unknown project", () => review({}, "proj_nope", jobId), 404, "Project not found"],
    ["no admin token", () => f.t.call("POST", `/admin/v1/projects/${f.w.projectId}/scan-jobs/${jobId}/review-groups`, { body: {} }), 401, "Invalid authentication"],
  ])("%s: %i %s", async (_, send, status, error) => {
    const r = await send();
    expect(r.status).toBe(status);
    expect(r.body.error).toBe(error);
  });

  test("from the Studio: the session cookie reads it, and it needs the CSRF header like every POST", async () => {
    const s = await signIn(f.t);
    const url = `/admin/v1/projects/${f.w.projectId}/scan-jobs/${jobId}/review-groups`;
    expect((await asStudio(f.t, s)("POST", url, {})).status).toBe(200);
    expect((await f.t.call("POST", url, { body: {}, headers: { cookie: s.cookie } })).status).toBe(403);
  });
});

describe("a group's extractions, and what accepting does", () => {
  const ex = (qs: string) => call("GET", `/projects/${f.w.projectId}/scan-jobs/${jobId}/extractions${qs}`);

  test("the extractions endpoint filters by group and kind and carries kind, reasons, speakers and variants", async () => {
    const g = await ex(`?group=${encodeURIComponent("character:garrick")}`);
    expect(g.status).toBe(200);
    expect(g.body.extractions.map((e: any) => e.sourceFiles[0])).toEqual(["lore/characters/garrick.md", "data/characters.json"]);
    expect(g.body.extractions[0]).toMatchObject({ kind: "character", group: "character:garrick", speakers: [], variants: [] });
    const d = await ex("?kind=dialogue");
    expect(d.body.extractions.map((e: any) => [e.title, e.speakers])).toEqual([["Tavern", ["Garrick", "Mira"]]]);
    expect(Object.keys(d.body.extractions[0].reasons).length).toBeGreaterThan(0);
    const bad = await ex("?kind=spell");
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual(["kind: unknown kind 'spell' (character, location, item, faction, event, dialogue, other)"]);
  });

  test("a group accepted through /v1/scanner/commit counts as committed; openOnly leaves it out; a deleted document reopens it", async () => {
    const c = await f.t.call("POST", "/v1/scanner/commit", {
      key: f.w.keys.editor,
      body: { jobId, extractionIds: [], accept: { groups: ["character:garrick"] }, reject: { files: ["data/characters.json"] } },
    });
    expect(c.status).toBe(202);
    expect(c.body.committed).toBe(1);
    const r = await review();
    expect(r.body.totals).toMatchObject({ committed: 1, open: 3 });
    expect(byGroup(r.body)["character:garrick"].committedCount).toBe(1);
    expect(r.body.kinds.find((k: any) => k.name === "character")).toEqual({ name: "character", count: 2, hidden: 0, committed: 1 });
    // the rejected file's extraction is still open: the group stays in the open list
    expect((await review({ openOnly: true })).body.groups.map((g: any) => g.group)).toContain("character:garrick");
    expect((await review({ openOnly: true, hide: { files: ["data/characters.json"] } })).body.groups.map((g: any) => g.group)).not.toContain("character:garrick");
    expect((await call("DELETE", `/projects/${f.w.projectId}/documents/${c.body.documentIds[0]}`)).status).toBe(200);
    expect((await review()).body.totals.committed).toBe(0);
  });

  test("a suggestion applied through the mind update path: the mind then knows the tag", async () => {
    const [garrick] = (await review()).body.knowledgeSuggestions;
    const p = await call("PATCH", `/projects/${f.w.projectId}/minds/${garrick.mind.id}`, { knowledgeTags: [...garrick.mind.knowledgeTags, ...garrick.newTags] });
    expect(p.status).toBe(200);
    const after = (await review()).body.knowledgeSuggestions[0];
    expect(after.newTags).toEqual([]);
    expect(after.tags).toEqual([{ tag: "smugglers", scenes: 1, exists: true, known: true }]);
    expect(after.mind.knowledgeTags.sort()).toEqual(["smugglers", "tavern", "town-history"]);
  });
});

describe("translations", () => {
  test("a Ren'Py scene with its French translation: one group listing the language; the extraction names the file", async () => {
    const { jobId: tl } = await submitAndUpload(f, [
      { path: "game/script.rpy", data: 'define m = Character("Mara")\n\nlabel quay:\n    m "The tide turns under the pier."\n    return\n' },
      { path: "game/tl/french/script.rpy", data: 'translate french quay_1:\n    m "La marée tourne sous la jetée."\n' },
    ]);
    await runWorker(f);
    const r = await review({}, f.w.projectId, tl);
    expect(r.body.groups.map((g: any) => [g.group, g.count, g.speakers, g.languages])).toEqual([["scene:game/script.rpy#quay", 1, ["Mara"], ["fr"]]]);
    expect(r.body.skipped.map((s: any) => [s.include, s.files])).toEqual([["translations", 1]]);
    const x = await call("GET", `/projects/${f.w.projectId}/scan-jobs/${tl}/extractions?group=${encodeURIComponent("scene:game/script.rpy#quay")}`);
    expect(x.body.extractions.map((e: any) => e.variants)).toEqual([[{ language: "fr", sourceFile: "game/tl/french/script.rpy" }]]);
  });

  test("a row written before the scanner's v2 (no review fields) is kind other and a group of its own, named by its id", async () => {
    const { jobId: old } = await submitAndUpload(f, [{ path: "lore/bridge.md", data: "# The Old Bridge\n\nThe old bridge of Thornhaven burned in the year of ash and was never rebuilt.\n" }]);
    await runWorker(f);
    const [row] = (await call("GET", `/projects/${f.w.projectId}/scan-jobs/${old}/extractions`)).body.extractions;
    f.t.app.db.query("UPDATE scan_extractions SET review = NULL WHERE id = ?").run(row.id);
    const r = await review({}, f.w.projectId, old);
    expect(r.body.groups.map((g: any) => [g.group, g.kind, g.title])).toEqual([[row.id, "other", "The Old Bridge"]]);
    const x = await call("GET", `/projects/${f.w.projectId}/scan-jobs/${old}/extractions?group=${row.id}`);
    expect(x.body.extractions.map((e: any) => [e.id, e.kind, e.group, e.reasons, e.speakers, e.variants])).toEqual([[row.id, "other", row.id, {}, [], []]]);
  });
});
