import type { ServiceContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { loadSnapshot, type ProjectSnapshot } from "../packs/projectSnapshot.ts";
import type { SourcedCase } from "./loadSuites.ts";
import { INVALID_TESTS, type LoreTestCase } from "./testSchema.ts";

/** A document a case names, as the checks need it. */
export interface NamedDocument {
  id: string;
  name: string;
  content: string;
}

/** A case with its names resolved against the project: what the runner runs. */
export interface ResolvedCase extends SourcedCase {
  mindId: string;
  mindName: string;
  /** per turn: knowsFrom's and noLeakOf's documents, by the name the writer used */
  turns: { knowsFrom: Map<string, NamedDocument>; noLeakOf: Map<string, NamedDocument[]> }[];
}

/**
 * Resolves every case's mind and documents against the project: a mind by pack key, name or id; a
 * document by key, name or id; noLeakOf also by tag name (every document carrying the tag). Every name
 * that resolves to nothing is a problem (400, all of them), so a renamed document fails the suite loudly
 * instead of making `knowsFrom` vacuously true.
 */
export function resolveCases(ctx: ServiceContext, projectId: string, cases: SourcedCase[]): ResolvedCase[] {
  const snap = loadSnapshot(ctx, projectId);
  const problems: string[] = [];
  const out: ResolvedCase[] = [];
  for (const sc of cases) {
    const at = (path: string, reason: string) => problems.push(`${sc.source}: ${path}: ${reason}`);
    const c: LoreTestCase = sc.case;
    const mind = findMind(snap, c.mind);
    if (!mind) at("mind", `no Entity Mind '${c.mind}' in this project (a pack key, a name or an id)`);
    const turns = c.turns.map((t, i) => {
      const knowsFrom = new Map<string, NamedDocument>();
      for (const ref of t.expect?.knowsFrom ?? []) {
        const d = findDocument(snap, ref);
        if (d) knowsFrom.set(ref, d);
        else at(`turns[${i}].expect.knowsFrom`, `no document '${ref}' in this project`);
      }
      const noLeakOf = new Map<string, NamedDocument[]>();
      for (const ref of t.expect?.noLeakOf ?? []) {
        const d = findDocument(snap, ref);
        const tagged = documentsTagged(snap, ref);
        if (d) noLeakOf.set(ref, [d]);
        else if (tagged) noLeakOf.set(ref, tagged);
        else at(`turns[${i}].expect.noLeakOf`, `no document or tag '${ref}' in this project`);
      }
      return { knowsFrom, noLeakOf };
    });
    if (mind) out.push({ ...sc, mindId: mind.id, mindName: mind.entityName, turns });
  }
  if (problems.length) throw new ApiError(400, INVALID_TESTS, { details: problems });
  return out;
}

function findMind(snap: ProjectSnapshot, ref: string) {
  const all = [...snap.minds.byKey.values()];
  return snap.minds.byKey.get(ref) ?? all.find((m) => m.id === ref) ?? all.find((m) => m.entityName.toLowerCase() === ref.toLowerCase()) ?? null;
}

function findDocument(snap: ProjectSnapshot, ref: string): NamedDocument | null {
  const all = [...snap.documents.byKey.values()];
  const d = snap.documents.byKey.get(ref) ?? all.find((x) => x.id === ref) ?? all.find((x) => x.name.toLowerCase() === ref.toLowerCase());
  return d ? { id: d.id, name: d.name, content: d.content } : null;
}

function documentsTagged(snap: ProjectSnapshot, tagName: string): NamedDocument[] | null {
  const tag = snap.tags.get(tagName);
  if (!tag) return null;
  return [...snap.documents.byKey.values()].filter((d) => d.tagIds.includes(tag.id)).map((d) => ({ id: d.id, name: d.name, content: d.content }));
}
