// A project whose assayer keeps a secret beside a plain note (and, for the cross-project checks, one whose document of
// the same words is no secret): what a prompt carries of it, the reply guard's view, through the production path.
import { importPack } from "../../src/packs/importPack.ts";
import { createApiKey } from "../../src/auth/apiKeys.ts";
import type { TestApp } from "./testApp.ts";

export const SECRET_TEXT = "Wenna salts the Syndicate's samples with silver filings; the true ledger is under the furnace grate, 37 paces from the door.";
export const PLAIN_TEXT = "The assay furnace burns charcoal from the Kettle woods.";
/** A reply that tells the secret in its own words (the guard's secretLeak). */
export const TELLING_REPLY = "I salt the Syndicate's samples with silver filings, and the true ledger lies under the furnace grate.";
export const ASK = "What do you burn in your assay furnace? And the Syndicate's samples?";

const pack = (name: string, secret: boolean) => ({
  project: { name },
  tags: [{ name: "furnace" }, { name: "furnace-private" }],
  minds: [{ key: "assayer", entityName: "Wenna Holt", personality: "Careful and proud.", knowledgeTags: ["furnace", "furnace-private"] }],
  documents: [
    { key: "furnace", name: "The Assay Furnace", tags: ["furnace"], content: PLAIN_TEXT },
    { key: "salting", name: "The Salted Samples", tags: ["furnace-private"], ...(secret ? { secret: true } : {}), content: SECRET_TEXT },
  ],
});

export interface SecretProject {
  projectId: string;
  mindId: string;
  serverKey: string;
}

/** Two projects on the app: `keeps` (the document is the assayer's secret) and `tells` (the same document, no secret). */
export async function secretProjects(t: TestApp): Promise<{ keeps: SecretProject; tells: SecretProject }> {
  const make = (name: string, secret: boolean): SecretProject => {
    const r = importPack(t.app.ctx as any, pack(name, secret) as any, {});
    return { projectId: r.projectId, mindId: (r.ids as any).minds.assayer, serverKey: createApiKey(t.app.ctx as any, { projectId: r.projectId, type: "server" }).key };
  };
  const out = { keeps: make("Keeps", true), tells: make("Tells", false) };
  await t.app.scheduler.trigger("indexer");
  return out;
}
