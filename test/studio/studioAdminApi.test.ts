import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { indexPendingInSqlite } from "../support/world.ts";
import { completedScan, type ScanFixture } from "../scanner/service/scanSupport.ts";

let f: ScanFixture;
let token: string;
let jobId: string;
const call = (method: string, path: string, body?: unknown) => f.t.call(method, `/admin/v1${path}`, { key: token, body });
const P = () => `/projects/${f.w.projectId}`;

const files = [
  { path: "lore/tankard.md", data: "# The Rusty Tankard\n\nThe Rusty Tankard is the oldest tavern in Thornhaven. Garrick brews a dark porter there and keeps the town-history ledger behind the bar.\n" },
  { path: "lore/docks.md", data: "# Night at the Docks\n\nAt the Docks the Smugglers unload their crates after midnight, when the river fog hides the lanterns of the watch.\n" },
  { path: "data/items.json", data: JSON.stringify([{ name: "Ember Blade", description: "A sword forged in the abbey ruins that glows faintly when danger is near." }]) },
];

beforeAll(async () => {
  ({ f, jobId } = await completedScan(files));
  token = ensureAdminToken(f.t.app.db).adminToken;
});
afterAll(() => f.close());

describe("GET /projects/:id/overview", () => {
  test("counts, documents by status, credits and the model state", async () => {
    const r = await call("GET", `${P()}/overview`);
    expect(r.status).toBe(200);
    expect(r.body.project.id).toBe(f.w.projectId);
    expect(r.body.counts).toMatchObject({ minds: Object.keys(f.w.minds).length, documents: Object.keys(f.w.documents).length, scanJobs: 1, memories: 0 });
    expect(r.body.documentsByStatus.PENDING).toBe(Object.keys(f.w.documents).length);
    expect(r.body.documentsIndexing).toBe(Object.keys(f.w.documents).length);
    expect(r.body.interactionsLast24h).toBe(0);
    expect(r.body.credits).toHaveProperty("available");
    expect(r.body.model.state).toBe("absent");
    // no model: the playground shows the ways out the terminal prints, one per line
    expect(r.body.modelAdvice).toHaveLength(3);
    expect(r.body.modelAdvice[0]).toContain("lorehold model pull hf:");
    expect(r.body.modelAdvice[1]).toContain(f.t.app.config.modelsDir);
    expect(r.body.modelAdvice[2]).toContain("LOREHOLD_GENERATION=remote");
  });
  test("unknown project: 404; no auth: 401", async () => {
    expect((await call("GET", "/projects/proj_nope/overview")).body.error).toBe("Project not found");
    expect((await f.t.call("GET", `/admin/v1${P()}/overview`)).status).toBe(401);
  });
});

describe("usage and ledger", () => {
  test("24h: 24 hourly buckets ending now; 7d: 28; 30d: 30; zero without traffic", async () => {
    for (const [range, n, secs] of [["24h", 24, 3600], ["7d", 28, 21600], ["30d", 30, 86400]] as const) {
      const r = await call("GET", `${P()}/usage?range=${range}`);
      expect(r.status).toBe(200);
      expect(r.body.series.length).toBe(n);
      expect(r.body.bucketSeconds).toBe(secs);
      expect(r.body.series.every((p: any) => p.interactions === 0 && p.firstTokenMs === null)).toBe(true);
    }
  });
  test("an unknown range is 400 naming the choices", async () => {
    const r = await call("GET", `${P()}/usage?range=1y`);
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual(["range: must be one of 24h, 7d, 30d"]);
  });
  test("the ledger lists the project's movements newest first (a grant appears)", async () => {
    await call("POST", `${P()}/credits/grant`, { credits: 7 });
    const r = await call("GET", `${P()}/ledger?limit=5`);
    expect(r.status).toBe(200);
    expect(r.body.movements[0]).toMatchObject({ kind: "topup_grant", credits: 7, bucket: "topup" });
    expect((await call("GET", `${P()}/ledger?limit=0`)).status).toBe(400);
    // another project's movements never show
    const other = await call("GET", `/projects/${f.other.projectId}/ledger`);
    expect(other.body.movements.some((m: any) => m.kind === "topup_grant")).toBe(false);
  });
});

describe("who knows what", () => {
  test("each document lists exactly the minds whose tags meet its tags", async () => {
    const r = await call("GET", `${P()}/knowledge-matrix`);
    expect(r.status).toBe(200);
    const mindTags = new Map(r.body.minds.map((m: any) => [m.id, m.knowledgeTags as string[]]));
    for (const d of r.body.documents) {
      const expected = [...mindTags].filter(([, tags]) => d.tags.some((t: string) => (tags as string[]).includes(t))).map(([id]) => id);
      expect(d.visibleTo.sort()).toEqual(expected.sort());
    }
    const loose = r.body.documents.find((d: any) => d.name === "Loose Notes");
    expect(loose.visibleTo).toEqual([]);
    expect(r.body.tags).toContain("smugglers");
  });
  test("index status shows a document's state and reason", async () => {
    const r = await call("GET", `${P()}/documents/${f.w.documents.history}/index-status`);
    expect(r.body).toMatchObject({ status: "PENDING", errorMessage: null, chunkCount: 0 });
    indexPendingInSqlite(f.t.app.ctx);
    const done = await call("GET", `${P()}/documents/${f.w.documents.history}/index-status`);
    expect(done.body.status).toBe("COMPLETED");
    expect(done.body.chunkCount).toBe(2);
    expect((await call("GET", `/projects/${f.other.projectId}/documents/${f.w.documents.history}/index-status`)).status).toBe(404);
  });
});

describe("scan review", () => {
  const base = () => `${P()}/scan-jobs/${jobId}`;
  test("full text, facets, groups by source file; filters by confidence, tag, format, search", async () => {
    const r = await call("GET", `${base()}/extractions`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3);
    expect(r.body.extractions.map((e: any) => e.title)).toEqual(["The Rusty Tankard", "Night at the Docks", "Ember Blade"]);
    expect(r.body.extractions[0].content).toContain("Garrick brews a dark porter");
    expect(r.body.facets.formats.map((x: any) => x.name).sort()).toEqual(["json", "md"]);
    expect(r.body.groups.bySourceFile.map((g: any) => g.name).sort()).toEqual(["data/items.json", "lore/docks.md", "lore/tankard.md"]);
    const json = await call("GET", `${base()}/extractions?format=json`);
    expect(json.body.extractions.map((e: any) => e.title)).toEqual(["Ember Blade"]);
    // tags as the reviewer sets them (the extractor's own tag choice is the scanner's business)
    const docks = r.body.extractions.find((e: any) => e.title === "Night at the Docks");
    await call("PATCH", `${base()}/extractions/${docks.id}`, { tags: ["smugglers"] });
    const smug = await call("GET", `${base()}/extractions?tag=smugglers`);
    expect(smug.body.extractions.map((e: any) => e.title)).toEqual(["Night at the Docks"]);
    expect(smug.body.facets.tags).toContainEqual({ name: "smugglers", count: 1 });
    const q = await call("GET", `${base()}/extractions?search=porter`);
    expect(q.body.total).toBe(1);
    const none = await call("GET", `${base()}/extractions?minConfidence=1.01`);
    expect(none.status).toBe(400);
  });
  test("another project's job: 403 Access denied, as the scanner says", async () => {
    const r = await call("GET", `/projects/${f.other.projectId}/scan-jobs/${jobId}/extractions`);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("Access denied");
  });
  test("edit before commit: the committed document carries the edit; a committed extraction is 409", async () => {
    const list = (await call("GET", `${base()}/extractions`)).body.extractions;
    const ember = list.find((e: any) => e.title === "Ember Blade");
    const bad = await call("PATCH", `${base()}/extractions/${ember.id}`, { title: "  " });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual(["title: must be 1–200 characters"]);
    const unknownField = await call("PATCH", `${base()}/extractions/${ember.id}`, { colour: "red" });
    expect(unknownField.status).toBe(400);
    const e = await call("PATCH", `${base()}/extractions/${ember.id}`, { title: "The Ember Blade", tags: ["smugglers"], location: "Docks" });
    expect(e.status).toBe(200);
    expect(e.body).toMatchObject({ title: "The Ember Blade", tags: ["smugglers"], location: "Docks", documentId: null });
    const c = await f.t.call("POST", "/v1/scanner/commit", { key: f.w.keys.editor, body: { jobId, extractionIds: [ember.id] } });
    expect(c.status).toBe(202);
    const doc = await f.t.call("GET", `/v1/lore/documents/${c.body.documentIds[0]}`, { key: f.w.keys.editor });
    expect(doc.body.document.name).toBe("The Ember Blade");
    expect(doc.body.document.tags.map((t: any) => t.name)).toEqual(["smugglers"]);
    expect(doc.body.document.location.name).toBe("Docks");
    const again = await call("PATCH", `${base()}/extractions/${ember.id}`, { title: "Too late" });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("Extraction already committed");
    expect((await call("PATCH", `${base()}/extractions/ext_nope`, { title: "x" })).status).toBe(404);
  });
  test("bulk approve commits what the filter matches; nothing matching is 400", async () => {
    const r = await call("POST", `${base()}/approve`, { format: "md" });
    expect(r.status).toBe(200);
    expect(r.body.committed).toBe(2);
    expect(r.body.documentIds.length).toBe(2);
    const none = await call("POST", `${base()}/approve`, { tag: "no-such-tag" });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe("No matching extractions found");
    const list = (await call("GET", `${base()}/extractions`)).body.extractions;
    expect(list.every((e: any) => e.documentId)).toBe(true);
  });
});

describe("lore packs", () => {
  const pack = `tags:\n  - name: harbour\nminds:\n  - key: mara\n    entityName: Mara\n    personality: A quiet harbour pilot.\n    knowledgeTags: [harbour]\n`;
  test("a dry run reports what would be created and writes nothing", async () => {
    const before = (await call("GET", `${P()}/overview`)).body.counts;
    const r = await call("POST", `${P()}/packs/import`, { text: pack, fileName: "harbour.yaml", dryRun: true });
    expect(r.status).toBe(200);
    expect(r.body.dryRun).toBe(true);
    expect(r.body.changes.minds).toEqual({ create: ["mara"], update: [], unchanged: [] });
    expect(r.body.changes.tags.create).toEqual(["harbour"]);
    expect((await call("GET", `${P()}/overview`)).body.counts).toEqual(before);
  });
  test("problems are listed by path (400 Invalid lore pack), syntax errors by line", async () => {
    const r = await call("POST", `${P()}/packs/import`, { text: "minds:\n  - key: x\n    personality: no name\n", fileName: "bad.yaml", dryRun: true });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Invalid lore pack");
    expect(r.body.details.some((d: string) => d.startsWith("minds[0].entityName"))).toBe(true);
    const syntax = await call("POST", `${P()}/packs/import`, { text: "{ bad json", fileName: "x.json" });
    expect(syntax.status).toBe(400);
    expect(syntax.body.details[0]).toMatch(/^x\.json:1: /);
  });
  test("import writes; importing again changes nothing; export downloads YAML and JSON", async () => {
    const r = await call("POST", `${P()}/packs/import`, { text: pack, fileName: "harbour.yaml" });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.ids.minds)).toEqual(["mara"]);
    const again = await call("POST", `${P()}/packs/import`, { text: pack, fileName: "harbour.yaml", dryRun: true });
    expect(again.body.changes.minds).toEqual({ create: [], update: [], unchanged: ["mara"] });
    const y = await f.t.app.handle(new Request(`http://localhost/admin/v1${P()}/packs/export?format=yaml`, { headers: { authorization: `Bearer ${token}` } }));
    expect(y.status).toBe(200);
    expect(y.headers.get("content-disposition")).toBe('attachment; filename="Thornhaven.yaml"');
    expect(await y.text()).toContain("entityName: Mara");
    const j = await f.t.app.handle(new Request(`http://localhost/admin/v1${P()}/packs/export?format=json`, { headers: { authorization: `Bearer ${token}` } }));
    expect(JSON.parse(await j.text()).minds.some((m: any) => m.entityName === "Mara")).toBe(true);
    expect((await call("GET", `${P()}/packs/export?format=xml`)).status).toBe(400);
  });
});
