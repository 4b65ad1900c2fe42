import type { ServiceContext } from "../../core/context.ts";
import { conditionProblems } from "../../conditions/checkCondition.ts";
import { CONDITION_LIMITS } from "../../conditions/parseCondition.ts";
import { declarationsOf } from "../../state/stateSchema.ts";
import { readStateSchema } from "../../state/stateService.ts";
import { resolveTagNames } from "../tags/writeTags.ts";
import { isPlainObject, LIMITS, type Problems } from "../validate/fields.ts";
import type { KnowledgeEntry } from "./mindStore.ts";

export const KNOWLEDGE_ENTRIES = 100;

/**
 * A mind's conditional knowledge as authored: `[{tag, when}]`, each tag a project tag named once,
 * each condition checked against the project's declared state keys. The plain `knowledgeTags` list
 * stays what it was: tags the mind always knows.
 */
export function checkKnowledge(ctx: ServiceContext, projectId: string, v: unknown, p: Problems): KnowledgeEntry[] {
  if (v === null) return [];
  if (!Array.isArray(v)) {
    p.add("knowledge", "must be a list of {tag, when}");
    return [];
  }
  if (v.length > KNOWLEDGE_ENTRIES) p.add("knowledge", `at most ${KNOWLEDGE_ENTRIES} entries`);
  const declared = declarationsOf(readStateSchema(ctx, projectId));
  const seen = new Set<string>();
  const out: KnowledgeEntry[] = [];
  v.forEach((e, i) => {
    const path = `knowledge[${i}]`;
    if (!isPlainObject(e)) return p.add(path, "must be an object {tag, when}");
    p.unknownKeys(path, e, ["tag", "when"]);
    let tagId: string | undefined;
    if (typeof e.tag !== "string" || e.tag.trim() === "" || e.tag.length > LIMITS.tagName) p.add(`${path}.tag`, "must be a tag name");
    else if (seen.has(e.tag)) p.add(`${path}.tag`, `'${e.tag}' is named twice: join its conditions with ||`);
    else {
      seen.add(e.tag);
      const { ids, missing } = resolveTagNames(ctx, projectId, [e.tag]);
      if (missing.length) p.add(`${path}.tag`, `unknown tag '${e.tag}'`);
      else tagId = ids[0];
    }
    if (typeof e.when !== "string" || e.when.trim() === "") p.add(`${path}.when`, "required: the condition under which the tag opens");
    else if (e.when.length > CONDITION_LIMITS.chars) p.add(`${path}.when`, `at most ${CONDITION_LIMITS.chars} characters`);
    else for (const problem of conditionProblems(`${path}.when`, e.when, declared)) p.list.push(problem);
    if (tagId && typeof e.when === "string") out.push({ tagId, when: e.when });
  });
  return out;
}
