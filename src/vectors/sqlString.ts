/**
 * Quotes a value as an SQL string literal for LanceDB (DataFusion) filters.
 *
 * Tag names, ids and player ids are user data, so every literal in a filter goes
 * through here. DataFusion string literals treat a backslash as an ordinary
 * character; the only special character is the quote itself, escaped by doubling
 * it (`it's` → `'it''s'`). NUL cannot be represented safely, so it is rejected
 * rather than silently changed (a changed tag name could match a different tag).
 */
export function sqlString(value: string): string {
  if (typeof value !== "string") throw new TypeError(`sqlString expects a string, got ${typeof value}`);
  if (value.includes("\u0000")) throw new Error("NUL character is not allowed in a filter value");
  return `'${value.replaceAll("'", "''")}'`;
}

/** `[ 'a', 'b' ]` — an SQL list literal for `array_has_any` / `IN`. */
export function sqlStringList(values: readonly string[]): string {
  return `[${values.map(sqlString).join(", ")}]`;
}
