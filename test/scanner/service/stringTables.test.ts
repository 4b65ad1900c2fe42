import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";
import { readEntries } from "../../../src/scanner/extract/formats/unityStringTable.ts";
import { job, runWorker, scanFixture, submitAndUpload, type ScanFixture } from "./scanSupport.ts";

const HEADER = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!114 &11400000\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n";
/** A locale table as Unity writes it, including a single-quoted scalar whose closing quote sits at column 0. */
const TABLE = `${HEADER}  m_Name: Lore_en\n  m_LocaleId:\n    m_Code: en\n  m_SharedData: {fileID: 11400000, guid: 70b3, type: 2}\n  m_TableData:
  - m_Id: 11
    m_Localized: Ember Blade
    m_Metadata:
      m_Items: []
  - m_Id: 12
    m_Localized: 'A sword forged in the abbey ruins; it''s said to glow

      when danger is near.

'
    m_Metadata:
      m_Items: []
  - m_Id: 13
    m_Localized: "Thornhaven\\r"
  - m_Id: 14
    m_Localized: Mira
  - m_Id: 15
    m_Localized: A wandering herbalist
      who knows every path through the marsh.
`;
const SHARED = `${HEADER}  m_Name: Lore Shared Data\n  m_TableCollectionName: Lore\n  m_Entries:
  - m_Id: 11
    m_Key: item_ember_blade_name
  - m_Id: 12
    m_Key: item_ember_blade_desc
  - m_Id: 13
    m_Key: location_thornhaven_name
  - m_Id: 14
    m_Key: npc_mira_name
  - m_Id: 15
    m_Key: npc_mira_bio
`;

describe("Unity string tables", () => {
  test("scalars decode as YAML does: '' quotes, folded lines, a closing quote at column 0, double-quoted escapes, plain continuations", () => {
    expect([...readEntries(TABLE, "m_Localized")]).toEqual([
      ["11", "Ember Blade"],
      ["12", "A sword forged in the abbey ruins; it's said to glow\nwhen danger is near."], // trailing breaks dropped
      ["13", "Thornhaven"],
      ["14", "Mira"],
      ["15", "A wandering herbalist who knows every path through the marsh."],
    ]);
  });

  test("joined with the shared keys: one candidate per key group titled by its name; names alone listed", () => {
    const keys = new Map([...readEntries(SHARED, "m_Key")]);
    const r = extractFile("Assets/Localization/Lore_en.asset", TABLE, { stringTableKeys: (c) => (c === "Lore" ? keys : undefined) });
    expect(r.sections.map((s) => [s.title, s.text])).toEqual([
      ["Ember Blade", "A sword forged in the abbey ruins; it's said to glow\nwhen danger is near."],
      ["Mira", "A wandering herbalist who knows every path through the marsh."],
      ["Lore_en — short entries", "Thornhaven"],
    ]);
    expect(extractFile("Assets/Localization/Lore Shared Data.asset", SHARED).sections).toEqual([]);
  });
});

describe("Unity string tables through the worker", () => {
  let f: ScanFixture;
  beforeAll(async () => {
    f = await scanFixture();
  });
  afterAll(() => f.close());

  // The locale table first: it waits for its Shared Data, read later in the same archive.
  for (const order of ["table first", "shared first"]) {
    test(`the table and its Shared Data join across files (${order})`, async () => {
      const table = { path: "Assets/Localization/Lore_en.asset", data: TABLE };
      const shared = { path: "Assets/Localization/Lore Shared Data.asset", data: SHARED };
      const { jobId } = await submitAndUpload(f, order === "table first" ? [table, shared] : [shared, table]);
      await runWorker(f);
      const d = (await job(f, jobId)).body;
      expect(d.status).toBe("COMPLETED");
      expect(d.extractions.map((e: any) => e.title)).toEqual(["Ember Blade", "Mira", "Lore_en — short entries"]);
      expect(d.extractions[0].sourceFiles).toEqual(["Assets/Localization/Lore_en.asset"]);
    });
  }

  test("a table whose Shared Data is not in the archive is still scanned, without keys: long entries as passages, names listed", async () => {
    const { jobId } = await submitAndUpload(f, [{ path: "Assets/Localization/Lore_en.asset", data: TABLE }]);
    await runWorker(f);
    const d = (await job(f, jobId)).body;
    expect(d.extractions.map((e: any) => e.title)).toEqual(["A sword forged in the abbey ruins; it's said to glow", "Lore_en — short entries"]);
    expect(d.extractions[1].contentPreview).toBe("Ember Blade\nThornhaven\nMira");
  });
});
