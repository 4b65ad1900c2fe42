import type { ServiceContext } from "../../src/core/context.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { createApiKey } from "../../src/auth/apiKeys.ts";
import { createTag } from "../../src/lore/tags/writeTags.ts";
import { createMind } from "../../src/lore/minds/writeMinds.ts";
import { createDocument } from "../../src/lore/documents/writeDocuments.ts";

/**
 * A big project for the list benches and the Studio's scale test, written through the services (as an
 * importer would): `tags` tags, `documents` documents of ~60 words with one or two tags each, `minds`
 * minds knowing two or three tags. Seeded: every run sees the same names, tags and text.
 */
export function bigProject(ctx: ServiceContext, n: { minds: number; documents: number; tags?: number; name?: string }) {
  let seed = 0x2545f491;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const words = (k: number) => Array.from({ length: k }, () => pick(VOCABULARY)).join(" ");
  const project = createProject(ctx, { name: n.name ?? "Big world" });
  const editor = createApiKey(ctx, { projectId: project.id, type: "editor" }).key;
  const tags = Array.from({ length: n.tags ?? 20 }, (_, i) => createTag(ctx, project.id, { name: `region-${i}` }).name);
  // A thousand documents per transaction (each service call nests as a savepoint): one commit per document
  // made 50,000 take tens of minutes on a busy disk.
  for (let from = 0; from < n.documents; from += 1000) {
    ctx.db.transaction(() => {
      for (let i = from; i < Math.min(n.documents, from + 1000); i++) {
        const docTags = rand() < 0.5 ? [pick(tags)] : [...new Set([pick(tags), pick(tags)])];
        createDocument(ctx, project.id, { name: `${words(2)} ${i}`, content: `${words(60)}.`, tags: docTags });
      }
    })();
  }
  const minds: string[] = [];
  for (let i = 0; i < n.minds; i++) {
    const known = [...new Set([pick(tags), pick(tags), pick(tags)])];
    minds.push(createMind(ctx, project.id, { entityName: `${words(1)} ${i}`, personality: words(12), role: words(2), knowledgeTags: known } as never).id);
  }
  return { projectId: project.id, editor, tags, minds };
}

const VOCABULARY = (
  "river road mill marsh ferryman guard smuggler bridge tavern lantern harvest captain chapel bell tide salt " +
  "north gate king land dragon gold quest merchant debt letter oath storm harbour reed lamp widow tithe"
).split(" ");
