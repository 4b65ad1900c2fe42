import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { runCli } from "../../src/cli/runCli.ts";
import { readCardBytes } from "../../src/cards/readCardBytes.ts";
import { createTestApp, tempDir, type TestApp } from "../support/testApp.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";
import { b64, bytesOf, MIRA_V2, png, tEXt, WORLD_INFO } from "./fixtures.ts";

// real llama.cpp on shared cores
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
let t: TestApp;
let admin = "";
let projectId = "";

/** A raw-body admin request (the card route takes the file's bytes). */
async function send(method: string, path: string, body?: Uint8Array, contentType = "application/octet-stream") {
  const res = await t.app.handle(
    new Request(`http://localhost${path}`, { method, body, headers: { authorization: `Bearer ${admin}`, "content-type": contentType } }),
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  let json: any = null;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {}
  return { status: res.status, json, bytes, headers: res.headers };
}

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, parallel: 2, contextSize: 2048, maxReplyTokens: 8 });
  admin = ensureAdminToken(t.app.db).adminToken;
  projectId = (await t.call("POST", "/admin/v1/projects", { key: admin, body: { name: "Saltmere" } })).body.id;
}, 60_000);
afterAll(() => t.close());

describe("admin API: a card and a lorebook become a working mind", () => {
  let mindId = "";
  test("POST …/import/card with a PNG card, then a World Info lorebook for that mind", async () => {
    const r = await send("POST", `/admin/v1/projects/${projectId}/import/card`, png(tEXt("chara", b64(MIRA_V2))), "image/png");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: "card", format: "png", projectId, tag: "st:mira-ashgrove", entries: { documents: 3, constant: 1, disabled: 1 } });
    mindId = r.json.mindId;
    const b = await send("POST", `/admin/v1/projects/${projectId}/import/card?mind=${mindId}`, bytesOf(WORLD_INFO), "application/json");
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ kind: "lorebook", format: "json", mindId, tag: "st:saltmere-bestiary" });
  });
  test("the interact preview shows the card's and the lorebook's entries; disabled ones never", async () => {
    await t.app.scheduler.trigger("indexer");
    const preview = (text: string) =>
      t.call("POST", `/admin/v1/projects/${projectId}/interact-preview`, { key: admin, body: { text, entityMindId: mindId, playerId: "writer" } });
    const a = await preview("Tell me about the Drowned Fleet and the ghost ships");
    expect(a.status).toBe(200);
    expect(a.body.visibleTags).toEqual(["st:mira-ashgrove", "st:saltmere-bestiary"]);
    expect(a.body.lore.map((l: any) => l.documentName)).toContain("The Drowned Fleet");
    expect(a.body.prompt[0].content).toContain("What you know: Saltmere is a fishing town on a cold northern coast.");
    expect(a.body.prompt[0].content).toContain("Rules you never break:\n- Never reveal where the Fleet's gold is hidden.");
    const b = await preview("Is there a kraken in the bay?");
    expect(b.body.lore.map((l: any) => l.documentName)).toContain("The Kraken");
    const c = await preview("smugglers harbour master bribes selkie seal skin");
    const names = c.body.lore.map((l: any) => l.documentName);
    expect(names).not.toContain("Smugglers");
    expect(names).not.toContain("Selkies");
    expect(names).not.toContain("Mira Ashgrove (card notes)");
  });
  test("and the mind answers through /v1/npc/interact (real llama.cpp)", async () => {
    const key = (await t.call("POST", `/admin/v1/projects/${projectId}/keys`, { key: admin, body: { type: "server" } })).body.key;
    const r = await t.call("POST", "/v1/npc/interact", { key, body: { text: "Who are you?", entityMindId: mindId, playerId: "p1" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, character: "Mira Ashgrove" });
  });
  test("GET …/minds/{id}/card as JSON and as PNG", async () => {
    const j = await send("GET", `/admin/v1/projects/${projectId}/minds/${mindId}/card`);
    expect(j.status).toBe(200);
    expect(j.json.spec).toBe("chara_card_v2");
    expect(j.json.data.character_book.entries.map((e: any) => e.name)).toEqual(["What Mira Ashgrove knows", "The Kraken", "The Drowned Fleet", "Saltmere Lighthouse"]);
    const p = await send("GET", `/admin/v1/projects/${projectId}/minds/${mindId}/card?format=png`);
    expect(p.status).toBe(200);
    expect(p.headers.get("content-type")).toBe("image/png");
    expect(p.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''Mira%20Ashgrove.png");
    const back = readCardBytes(p.bytes);
    expect(back.kind === "card" && back.card.book!.entries.length).toBe(4);
  });
  const refusals: Array<[string, () => string, () => Uint8Array | undefined, number, Record<string, unknown>]> = [
    ["a hostile PNG", () => `/admin/v1/projects/${projectId}/import/card`, () => png(tEXt("chara", "%%%")), 400, { error: "Invalid character card", details: ["png: the 'chara' text chunk is not base64"] }],
    ["an empty body", () => `/admin/v1/projects/${projectId}/import/card`, () => undefined, 400, { error: "Invalid character card", details: ["body: empty (send the card's PNG or JSON bytes)"] }],
    ["an unknown project", () => "/admin/v1/projects/proj_nope/import/card", () => bytesOf(MIRA_V2), 404, { error: "Project not found" }],
    ["an unknown mind's card", () => `/admin/v1/projects/${projectId}/minds/mind_nope/card`, () => undefined, 404, { error: "Entity Mind not found" }],
  ];
  for (const [name, path, body, status, json] of refusals) {
    test(`${status} — ${name}`, async () => {
      const r = await send(path().endsWith("/card") && !path().includes("import") ? "GET" : "POST", path(), body());
      expect(r.status).toBe(status);
      expect(r.json).toEqual(json);
    });
  }
});

describe("CLI: lorehold import detects cards by content; export-card", () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli([...args, "--data-dir", join(dir, "data")], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
    return { code, err: err.join("\n"), json: args.includes("--json") && out.length === 1 ? JSON.parse(out[0]) : undefined, out };
  };
  test("a PNG named .dat, a lorebook for a mind by name, a card exported as PNG and imported again", async () => {
    writeFileSync(join(dir, "mira.dat"), png(tEXt("chara", b64(MIRA_V2))));
    writeFileSync(join(dir, "bestiary.json"), JSON.stringify(WORLD_INFO));
    const a = await cli("import", join(dir, "mira.dat"), "--json");
    expect(a.code).toBe(0);
    expect(a.json).toMatchObject({ kind: "card", format: "png", entries: { documents: 3 } });
    const p = a.json.projectId;
    const b = await cli("import", join(dir, "bestiary.json"), "--project", p, "--mind", "Mira Ashgrove", "--json");
    expect(b.json).toMatchObject({ kind: "lorebook", mindId: a.json.mindId });
    const text = await cli("import", join(dir, "bestiary.json"), "--project", p, "--mind", "Mira Ashgrove");
    expect(text.out.join("\n")).toBe(
      `Imported lorebook for mind ${a.json.mindId} into ${p}: 2 lorebook entries as documents tagged 'st:saltmere-bestiary' (1 disabled: kept, seen by no mind).\n` +
        "Not carried over (no Lorehold equivalent), 1:\n" +
        "  entries.1: selectiveLogic AND ANY: the entry needed one of its secondary keys as well; retrieval has no keyword gate\n" +
        "Documents are indexed by the running server.",
    );
    const out = join(dir, "out.png");
    const e = await cli("export-card", "--project", p, "--mind", a.json.mindId, "--format", "png", "--out", out, "--json");
    expect(e.json).toEqual({ written: out, format: "png", name: "Mira Ashgrove", entries: 4 });
    expect(readCardBytes(readFileSync(out))).toMatchObject({ kind: "card", card: { name: "Mira Ashgrove" } });
    const bad = await cli("import", join(dir, "bestiary.json"), "--mind", "Mira Ashgrove", "--json");
    expect(bad.code).toBe(2);
    const png404 = await cli("export-card", "--project", p, "--mind", "Nobody", "--json");
    expect(png404.json).toEqual({ error: "Entity Mind not found" });
  });
});
