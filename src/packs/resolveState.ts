import { isPlainObject, type Problems } from "../lore/validate/fields.ts";
import { checkStateSchema, type StateSchema } from "../state/stateSchema.ts";

/**
 * A pack's `state:` section (the project's state declarations: typed keys with their defaults, and
 * exclusive groups), checked by the same rules as the admin API. Null when the pack has none: the
 * project's declarations then stay as they are. A section is the whole schema: keys it leaves out
 * are no longer declared.
 */
export function resolveState(pack: Record<string, unknown>, p: Problems): StateSchema | null {
  if (!isPlainObject(pack.state)) return null;
  // checkShape reported shape problems already; the schema's own rules only on a well-shaped section.
  if (p.list.some((x) => x.startsWith("state"))) return null;
  const section = Object.fromEntries(Object.entries(pack.state).filter(([, v]) => v !== null));
  return checkStateSchema(section, "state", p);
}
