import { expect, test } from "bun:test";
import { openDatabase, withCacheSize } from "../../src/db/openDatabase.ts";

const cacheSize = (db: ReturnType<typeof openDatabase>) => db.query<{ cache_size: number }, []>("PRAGMA cache_size").get()!.cache_size;

test("withCacheSize sets the page cache for the call and puts the previous one back, also when it throws", async () => {
  const db = openDatabase(":memory:");
  expect(cacheSize(db)).toBe(-32000);
  let inside = 0;
  expect(await withCacheSize(db, 8000, async () => ((inside = cacheSize(db)), "done"))).toBe("done");
  expect(inside).toBe(-8000);
  expect(cacheSize(db)).toBe(-32000);
  await expect(withCacheSize(db, 4000, async () => { throw new Error("scan failed"); })).rejects.toThrow("scan failed");
  expect(cacheSize(db)).toBe(-32000);
  db.close();
});
