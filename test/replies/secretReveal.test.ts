import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import { createApiKey } from "../../src/auth/apiKeys.ts";
import { exportPack } from "../../src/packs/exportPack.ts";
import { importPack } from "../../src/packs/importPack.ts";
import { prepareTurn } from "../../src/npc/prepareTurn.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";
import { turnGuard } from "../../src/npc/replies/turnGuard.ts";
import { SECRET_MARK } from "../../src/npc/secrets/secretFraming.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { capturePrompts } from "../support/capturePrompts.ts";
import { ensureTinyModel } from "../support/tinyGguf.ts";

/**
 * A secret's `reveal` condition, through the production path: while it is false for this player and turn the
 * secret is the mind's to keep (known to the reply guard; left out of the prompt of this model, which is among the
 * smallest chat models, src/npc/secrets/smallestChatModels.ts: a larger one reads it marked, secrets.test.ts); while
 * it holds the secret is an ordinary note (in the prompt, no mark, not guarded). Checked on the admin preview and on
 * the prompt a real interaction hands to llama.cpp (a tiny random-weight GGUF the suite writes: what it says does
 * not matter, what it was given does).
 */

// real llama.cpp on 2 shared cores
setDefaultTimeout(120_000);

const MODEL = ensureTinyModel(undefined, { nCtx: 2048 });
const SECRET = "Wenna salts the Syndicate's samples with silver filings; the true ledger is under the furnace grate.";
const REVEAL = "trusted || flood_stage >= 3";
const PACK = {
  project: { name: "Reveal" },
  state: { stateKeys: { trusted: { type: "boolean", default: false }, flood_stage: { type: "number", default: 0 } } },
  tags: [{ name: "furnace" }, { name: "furnace-private" }],
  minds: [{ key: "assayer", entityName: "Wenna Holt", personality: "Careful and proud.", knowledgeTags: ["furnace", "furnace-private"] }],
  documents: [
    { key: "furnace", name: "The Assay Furnace", tags: ["furnace"], content: "The assay furnace burns charcoal from the Kettle woods." },
    { key: "salting", name: "The Salted Samples", tags: ["furnace-private"], secret: true, reveal: REVEAL, content: SECRET },
  ],
};
const ASK = "Do you salt the Syndicate's samples? Where is your true ledger?";

let t: TestApp;
let token: string;
let projectId: string;
let serverKey: string;
let ids: { minds: Record<string, string>; documents: Record<string, string> };
/** What each real interaction handed to the model, in order. */
const prompts: ChatMessage[][] = [];

const admin = (method: string, path: string, body?: unknown) => t.call(method, `/admin/v1${path}`, { key: token, body });
const body = (playerId: string, text: string, extra: Record<string, unknown> = {}) => ({ text, entityMindId: ids.minds.assayer, playerId, ...extra });
const preview = async (playerId: string, text: string, extra: Record<string, unknown> = {}) => {
  const r = await admin("POST", `/projects/${projectId}/interact-preview`, body(playerId, text, extra));
  expect(r.status).toBe(200);
  return { ...r.body, text: (r.body.prompt as ChatMessage[]).map((m) => m.content).join("\n") };
};
const interact = async (playerId: string, text: string, extra: Record<string, unknown> = {}) => {
  const r = await t.call("POST", "/v1/npc/interact", { key: serverKey, body: body(playerId, text, extra) });
  expect(r.status).toBe(200);
  return prompts.at(-1)!.map((m) => m.content).join("\n");
};
const secretNote = (p: { lore: { documentName: string; secret?: boolean; revealed?: boolean }[] }) => p.lore.find((l) => l.documentName === "The Salted Samples");
/** The reply guard's view of the turn, as /v1/npc/interact builds it. */
const guardOf = async (playerId: string, text: string, extra: Record<string, unknown> = {}) =>
  turnGuard(await prepareTurn(t.app.ctx, projectId, validateInteract(body(playerId, text, extra))), text);

beforeAll(async () => {
  t = await createTestApp({ model: MODEL, embeddingModel: "hashing", parallel: 1, contextSize: 2048, maxReplyTokens: 8, threads: 1 });
  token = ensureAdminToken(t.app.db).adminToken;
  const r = importPack(t.app.ctx as any, PACK as any, {});
  projectId = r.projectId;
  ids = r.ids as any;
  serverKey = createApiKey(t.app.ctx as any, { projectId, type: "server" }).key;
  await t.app.scheduler.trigger("indexer");
  capturePrompts(t.app, prompts);
}, 60_000);
afterAll(() => t.close());

describe("a secret's reveal condition: authoring", () => {
  test("a pack's reveal is stored, shown by the admin API and exported", async () => {
    const doc = await admin("GET", `/projects/${projectId}/documents/${ids.documents.salting}`);
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ secret: true, reveal: REVEAL });
    expect((await admin("GET", `/projects/${projectId}/documents/${ids.documents.furnace}`)).body.reveal).toBeNull();
    const pack = exportPack(t.app.ctx as any, projectId);
    expect(pack.documents!.find((d) => d.key === "salting")).toMatchObject({ secret: true, reveal: REVEAL });
    expect(pack.documents!.find((d) => d.key === "furnace")!.reveal).toBeUndefined();
  });

  test("a bad expression, an unknown key's wrong type, a non-string, or a reveal on a plain note is a 400 with the path, and writes nothing", async () => {
    const path = `/projects/${projectId}/documents/${ids.documents.salting}`;
    const bad = await admin("PATCH", path, { reveal: "trusted &&" });
    expect(bad.status).toBe(400);
    expect((bad.body.details as string[]).some((d) => d.startsWith("reveal:"))).toBe(true);
    const typed = await admin("PATCH", path, { reveal: "flood_stage == 'high'" });
    expect(typed.status).toBe(400);
    expect((typed.body.details as string[]).some((d) => d.startsWith("reveal:"))).toBe(true);
    expect((await admin("PATCH", path, { reveal: 3 })).status).toBe(400);
    const count = async () => (await admin("GET", `/projects/${projectId}/documents`)).body.documents.length as number;
    const before = await count();
    const plain = await admin("POST", `/projects/${projectId}/documents`, { name: "Plain", content: "x", reveal: "trusted" });
    expect(plain.status).toBe(400);
    expect(plain.body.details).toContain("reveal: only a secret document (secret: true) has a reveal condition");
    const both = await admin("PATCH", path, { secret: false, reveal: "trusted" });
    expect(both.status).toBe(400);
    expect((await admin("GET", path)).body).toMatchObject({ secret: true, reveal: REVEAL });
    expect(await count()).toBe(before);
  });

  test("a pack with a bad reveal, or one on a plain note, is refused with the path", async () => {
    const refused = (documents: unknown[]) => {
      try {
        importPack(t.app.ctx as any, { ...PACK, project: { name: "Bad" }, documents } as any, {});
        return [] as string[];
      } catch (e) {
        return ((e as { extra?: { details?: string[] } }).extra?.details ?? [String(e)]) as string[];
      }
    };
    const syntax = refused([{ key: "s", name: "S", tags: ["furnace"], secret: true, reveal: "trusted ||", content: "x" }]);
    expect(syntax.some((d) => d.startsWith("documents[0].reveal:"))).toBe(true);
    expect(refused([{ key: "s", name: "S", tags: ["furnace"], reveal: "trusted", content: "x" }])).toContain(
      "documents[0].reveal: only a secret document (secret: true) has a reveal condition",
    );
  });

  test("the admin API sets and clears it; unmarking the secret clears it; another project's key or a wrong key changes nothing", async () => {
    const c = await admin("POST", `/projects/${projectId}/documents`, { name: "Mine Debt", content: "Osk owes the mine forty marks.", tags: ["furnace"], secret: true, reveal: "trusted" });
    expect(c.status).toBe(201);
    const path = `/projects/${projectId}/documents/${c.body.id}`;
    expect((await admin("GET", path)).body.reveal).toBe("trusted");
    expect((await admin("PATCH", path, { reveal: null })).status).toBe(200);
    expect((await admin("GET", path)).body.reveal).toBeNull();
    expect((await admin("PATCH", path, { reveal: "world.flood_stage >= 2" })).status).toBe(200);
    expect((await admin("PATCH", path, { secret: false })).status).toBe(200);
    expect((await admin("GET", path)).body).toMatchObject({ secret: false, reveal: null });
    // another project's admin path for this document: not found; a wrong admin token: refused
    const other = importPack(t.app.ctx as any, { project: { name: "Other" } } as any, {}).projectId;
    expect((await admin("PATCH", `/projects/${other}/documents/${c.body.id}`, { secret: true, reveal: "trusted" })).status).toBe(404);
    const wrong = await t.call("PATCH", `/admin/v1${path}`, { key: "not-the-admin-token", body: { secret: true, reveal: "trusted" } });
    expect([401, 403]).toContain(wrong.status);
    expect((await admin("GET", path)).body).toMatchObject({ secret: false, reveal: null });
    await admin("DELETE", `${path}?confirm=true`);
  });
});

describe("a secret's reveal condition: the turn", () => {
  test("reveal false: the preview marks it kept, the prompt of this smallest model leaves it out, the guard keeps it", async () => {
    const p = await preview("stranger", ASK);
    expect(secretNote(p)).toMatchObject({ secret: true });
    expect(secretNote(p)!.revealed).toBeUndefined();
    expect(p.text).not.toContain("silver filings");
    expect(p.text).not.toContain(SECRET_MARK);
    const g = await guardOf("stranger-g", ASK);
    expect(g.context.secrets?.length).toBe(1);
    expect(g.withoutSecrets).toBeDefined();
    // a real interaction hands llama.cpp the same: no kept secret
    const sent = await interact("stranger", ASK);
    expect(sent).not.toContain("Wenna salts");
  });

  test("reveal true (player state, world state or the request's state): an ordinary note, not guarded", async () => {
    const put = await t.call("PUT", "/v1/state/players/friend", { key: serverKey, body: { set: { trusted: true } } });
    expect(put.status).toBe(200);
    const p = await preview("friend", ASK);
    expect(secretNote(p)).toMatchObject({ secret: true, revealed: true });
    expect(p.text).toContain("About The Salted Samples: Wenna salts");
    expect(p.text).not.toContain(SECRET_MARK);
    const g = await guardOf("friend", ASK);
    expect(g.context.secrets ?? []).toEqual([]);
    expect(g.withoutSecrets).toBeUndefined();
    expect(await interact("friend", ASK)).toContain("About The Salted Samples: Wenna salts");
    // the request's state, for this turn only
    expect(await interact("visitor", ASK, { state: { flood_stage: 3 } })).not.toContain(SECRET_MARK);
  });

  test("the condition is read at every turn: the same conversation's earlier note is kept again when it stops holding", async () => {
    const first = await interact("fickle", ASK, { state: { trusted: true } });
    expect(first).toContain("About The Salted Samples: Wenna salts");
    const next = await interact("fickle", "And the furnace?");
    // kept again: out of this smallest model's prompt, and the guard's to keep
    expect(next).not.toContain("Wenna salts");
    expect((await guardOf("fickle", "And the furnace?")).context.secrets?.length).toBe(1);
  });
});
