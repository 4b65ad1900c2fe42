import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as lancedb from "@lancedb/lancedb";
import { Field, List, Schema, Utf8 } from "apache-arrow";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqlString, sqlStringList } from "../../src/vectors/sqlString.ts";

const NASTY = [
  "it's",
  "''",
  "'; DROP TABLE chunks; --",
  'say "hi"',
  "back\\slash",
  "trailing\\",
  "\\'",
  "a)b",
  "x'), 'y",
  "50%",
  "_under_",
  "ünïcödé",
  "龍の歴史",
  "emoji 🐉",
  "line\nbreak",
  "tab\there",
  " spaced ",
  "",
  "OR 1=1",
  "tag') OR true OR ('",
];

describe("sqlString", () => {
  test("doubles single quotes and leaves everything else alone", () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(sqlString("")).toBe("''");
    expect(sqlString('a"b\\c)%')).toBe("'a\"b\\c)%'");
    expect(sqlStringList(["a", "b'c"])).toBe("['a', 'b''c']");
    expect(sqlStringList([])).toBe("[]");
  });

  test("rejects NUL and non-strings", () => {
    expect(() => sqlString("a\u0000b")).toThrow();
    expect(() => sqlString(5 as unknown as string)).toThrow();
  });

  describe("round-trips through LanceDB filters", () => {
    let dir: string;
    let table: lancedb.Table;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "lorehold-sql-"));
      const db = await lancedb.connect(dir);
      const schema = new Schema([new Field("id", new Utf8(), false), new Field("tags", new List(new Field("item", new Utf8(), true)), false)]);
      table = await db.createEmptyTable("t", schema);
      await table.add(NASTY.map((tag, i) => ({ id: `${i}`, tags: [tag] })));
      await table.add([{ id: "plain", tags: ["plain"] }]);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    for (const [i, tag] of NASTY.entries()) {
      test(`tag ${JSON.stringify(tag)} matches exactly itself`, async () => {
        const byTag = await table.query().where(`array_has_any(tags, ${sqlStringList([tag])})`).toArray();
        expect(byTag.map((r) => r.id)).toEqual([`${i}`]);
        const byId = await table.query().where(`id = ${sqlString(`${i}`)} AND array_has_any(tags, ${sqlStringList([tag, "plain"])})`).toArray();
        expect(byId.map((r) => r.id)).toEqual([`${i}`]);
      });
    }
  });
});
