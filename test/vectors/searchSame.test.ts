import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ProjectVectorCache } from "../../src/vectors/ProjectVectorCache.ts";
import { searchScenario, type ScenarioHits } from "./support/searchScenario.ts";

// The search keeps its candidates and the index its ranking of the lists in arrays made once (no object a
// candidate, no arrays a query): the hits must be the ones it gave before, ids and scores exactly, in the same order
// (the fixture was written by the code before, with test/vectors/support/searchScenario.ts).
test("a search's hits, ids and scores, are exactly those of the code before, on every path of the cache", async () => {
  const want = JSON.parse(readFileSync(new URL("./fixtures/search-hits.json", import.meta.url), "utf8")) as ScenarioHits;
  const got = await searchScenario(ProjectVectorCache);
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) expect({ label: got[i].label, hits: got[i].hits }).toEqual(want[i]);
  // the fixture covers what it claims: the index answered, narrow filters, replaced rows, the column copy
  expect(want.some((q) => q.label.startsWith("indexed (indexed)") && q.hits.length === 20)).toBe(true);
  expect(want.some((q) => q.label.includes("columns ready"))).toBe(true);
}, 120_000);
