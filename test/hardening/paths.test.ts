/**
 * A dot segment or an encoded slash in a path parameter never reaches another
 * route. `DELETE …/documents/..` once deleted the whole project (Bun resolves the dot segment into
 * `…/projects/{id}/`). Sent over a real socket, bytes as written: fetch would resolve them first.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { refusedPath } from "../../src/http/pathGuard.ts";
import { getProject } from "../../src/projects/projectService.ts";
import { ADMIN_TOKEN, authFor, startHardeningApp } from "./hardeningApp.ts";
import { head, rawRequest } from "./rawHttp.ts";

setDefaultTimeout(120_000);
let h: Awaited<ReturnType<typeof startHardeningApp>>;
beforeAll(async () => void (h = await startHardeningApp()));
afterAll(() => h.close());

const HOSTILE_IDS = ["..", "%2e%2e", "%2E%2E", ".%2e", "%2e.", ".", "%2e", "a%2Fb", "%2F", "..%2F..", "a%5Cb", "%2e%2e%2f", "%00"];

const counts = () => ({
  name: getProject(h.app.ctx, h.w.projectId).name,
  documents: h.app.db.query("SELECT COUNT(*) AS n FROM documents WHERE project_id = ?").get(h.w.projectId),
  minds: h.app.db.query("SELECT COUNT(*) AS n FROM entity_minds WHERE project_id = ?").get(h.w.projectId),
  keys: h.app.db.query("SELECT COUNT(*) AS n FROM api_keys WHERE project_id = ?").get(h.w.projectId),
});

describe("dot segments and encoded slashes in every parameter of every route", () => {
  test("never reach another route: 404 `Not found` (JSON, with a request id), nothing changed", async () => {
    const before = counts();
    const cases: Array<{ method: string; path: string; route: string }> = [];
    for (const r of h.routes) {
      const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      for (const p of params) {
        for (const bad of HOSTILE_IDS) {
          // a player id may hold `/` (the spec allows any string): `a%2Fb` there is the player "a/b", routed as one segment
          if (p === "playerId" && /%2f|%5c/i.test(bad)) continue;
          let path = r.path.replace(`:${p}`, bad);
          path = path.replace(":projectId", h.w.projectId).replace(/:(\w+)/g, "x");
          cases.push({ method: r.method, path, route: `${r.method} ${r.path} (${p} = ${bad})` });
        }
      }
    }
    expect(cases.length).toBeGreaterThan(500);
    for (const c of cases) {
      const body = c.method === "GET" || c.method === "DELETE" ? "" : JSON.stringify({ name: "Renamed by a dot segment" });
      const reply = await rawRequest(
        h.port,
        head(c.method, c.path, {
          authorization: authFor(c.path, h.w),
          ...(body ? { "content-type": "application/json", "content-length": String(body.length) } : {}),
        }),
        body,
      );
      expect({ route: c.route, status: reply?.status, error: reply?.json?.error, id: !!reply?.headers["x-request-id"] }).toEqual({
        route: c.route,
        status: 404,
        error: expect.stringMatching(/not found/i),
        id: true,
      });
    }
    expect(counts()).toEqual(before);
  });

  test.each([
    ["/admin/v1/projects/p1/documents/d1", null],
    ["/", null],
    ["/v1/lore/documents", null],
    ["/v1/lore/documents/doc%20one", null],
    ["/admin/v1/projects/p1/", "trailing slash"],
    ["/admin/v1/projects//documents", "empty segment"],
    ["/admin/v1/projects/p1/documents/%2e%2e", "encoded slash or dot segment"],
    ["/admin/v1/projects/p1/documents/a%2Fb", "encoded slash or dot segment"],
    ["/admin/v1/projects/p1/documents/a%5cb", "encoded slash or dot segment"],
    ["/admin/v1/projects/p1/players/steam%3A7656%2F%C3%A4%20b/memories", null],
    ["/admin/v1/projects/p1/players/%2e%2e/memories", "encoded slash or dot segment"],
    ["/admin/v1/projects/p1/documents/%zz", "malformed percent-encoding"],
    ["/admin/v1/projects/p1/documents/a%0Ab", "control character"],
  ])("refusedPath(%p) = %p", (path, want) => {
    expect(refusedPath(path)).toBe(want);
  });
});

describe("DELETE /admin/v1/projects/{id} needs ?confirm={id}", () => {
  const del = (path: string) => rawRequest(h.port, head("DELETE", path, { authorization: `Bearer ${ADMIN_TOKEN}` }));
  test.each([
    ["no confirmation", "", 400],
    ["an empty confirmation", "?confirm=", 400],
    ["another project's id", "?confirm=proj_other", 400],
    ["a dot segment after the id", "/..", 404],
    ["the id, resolved from a dot segment", "/documents/..?confirm=", 404],
  ])("%s → %d, the project stays", async (_, suffix, status) => {
    const reply = await del(`/admin/v1/projects/${h.w.projectId}${suffix}`);
    expect(reply?.status).toBe(status);
    expect(reply?.json?.error).toBe(status === 400 ? "Invalid request" : "Not found");
    if (status === 400) expect(reply?.json.details).toEqual(["confirm: must repeat the project id (?confirm=<projectId>) to delete a project"]);
    expect(getProject(h.app.ctx, h.w.projectId).id).toBe(h.w.projectId);
  });

  test("an unknown project is 404 before the confirmation is checked", async () => {
    const reply = await del("/admin/v1/projects/proj_missing");
    expect([reply?.status, reply?.json]).toEqual([404, { error: "Project not found" }]);
  });

  test("with the id confirmed, the project goes", async () => {
    const res = await h.app.handle(
      new Request(`http://localhost/admin/v1/projects`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Doomed" }),
      }),
    );
    const doomed = ((await res.json()) as any).id;
    const reply = await del(`/admin/v1/projects/${doomed}?confirm=${doomed}`);
    expect([reply?.status, reply?.json]).toEqual([200, { id: doomed, deleted: true }]);
    expect((await del(`/admin/v1/projects/${doomed}?confirm=${doomed}`))?.status).toBe(404);
  });
});
