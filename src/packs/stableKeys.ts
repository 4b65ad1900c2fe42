/**
 * Keys for rows that were authored without one (admin API, scanner): the
 * slug of the name, or slug + a piece of the row id when the slug is taken.
 * Export writes them and import matches them, so exporting a project and
 * importing the file back into the same project updates rows in place.
 */
export function assignKeys<R extends { id: string; key: string | null }>(rows: R[], nameOf: (r: R) => string, fallback: string): Map<string, R> {
  const byKey = new Map<string, R>();
  for (const r of rows) if (r.key !== null) byKey.set(r.key, r);
  // rows arrive in creation order, so the oldest row keeps the bare slug
  for (const r of rows) {
    if (r.key !== null) continue;
    const base = slug(nameOf(r)) || fallback;
    let key = base;
    if (byKey.has(key)) key = `${base}-${r.id.slice(r.id.indexOf("_") + 1, r.id.indexOf("_") + 7).toLowerCase()}`;
    for (let n = 2; byKey.has(key); n++) key = `${base}-${n}`;
    byKey.set(key, r);
  }
  return byKey;
}

/** "The Rusty Tankard!" → "the-rusty-tankard" (ASCII letters and digits, at most 60 characters). */
export function slug(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 60)
    .replace(/^-+|-+$/g, "");
}
