import { describe, expect, test } from "bun:test";
import { classify, extractFile, planScan } from "../../../src/scanner/extract/index.ts";

const cmd = (code: number, parameters: unknown[], indent = 0) => ({ code, indent, parameters });

/** A small MV map: one event whose window wraps a sentence over two 401 lines, and a choice. */
const MAP = JSON.stringify({
  autoplayBgm: false,
  displayName: "Rose Palace",
  note: "",
  width: 17,
  data: [0, 0, 0],
  events: [
    null,
    {
      id: 1,
      name: "Rose Guard",
      note: "",
      pages: [
        {
          list: [
            cmd(101, ["", 0, 0, 2]),
            cmd(401, ["You need tokens. Otherwise Rose will"]),
            cmd(401, ["not see you, \\C[2]stranger\\C[0]."]),
            cmd(102, [["Pay the guard", "Walk away"], 1, 0, 2, 0]),
            cmd(402, [0, "Pay the guard"]),
            cmd(101, ["Actor1", 0, 0, 2, "Lady Rose"], 1),
            cmd(401, ["Let them through. The plague waits for no one."], 1),
            cmd(0, []),
          ],
        },
      ],
    },
    { id: 2, name: "EV002", pages: [{ list: [cmd(121, [1, 1, 0]), cmd(0, [])] }] },
  ],
});

describe("RPG Maker MV/MZ", () => {
  test("a message window is one passage titled by map and event, its wrapped lines joined", () => {
    const { sections } = extractFile("data/Map002.json", MAP);
    expect(sections.map((s) => s.title)).toEqual(["Rose Palace: Rose Guard"]);
    const text = sections[0].text;
    expect(text).toContain("You need tokens. Otherwise Rose will not see you, stranger.");
    expect(text).not.toContain("\\C");
    // MZ's name parameter is the speaker; the player's answers stay with the window.
    expect(text).toContain("Lady Rose: Let them through. The plague waits for no one.");
    expect(text).toContain("> Pay the guard");
    expect(sections[0].reviewKind).toBe("dialogue");
  });

  test("common events and troops are titled by their names, never by the field `parameters`", () => {
    const common = JSON.stringify([null, { id: 1, name: "Plague Warning", list: [cmd(101, ["", 0, 0, 2]), cmd(401, ["This plague is killing us."]), cmd(401, ["So many are sick."]), cmd(0, [])], switchId: 1, trigger: 0 }]);
    const troops = JSON.stringify([null, { id: 1, name: "Boss Rat", members: [], pages: [{ conditions: {}, list: [cmd(101, ["", 0, 0, 2]), cmd(401, ["You need to kill more rats."]), cmd(401, ["You need to flush her out."]), cmd(0, [])], span: 0 }] }]);
    const c = extractFile("data/CommonEvents.json", common).sections;
    const t = extractFile("data/Troops.json", troops).sections;
    expect(c.map((s) => [s.title, s.text])).toEqual([["Plague Warning", "This plague is killing us. So many are sick."]]);
    expect(t.map((s) => [s.title, s.text])).toEqual([["Boss Rat", "You need to kill more rats. You need to flush her out."]]);
  });

  test("backup/ copies of data/ are counted as skipped, and a repeated line gains no confidence from them", () => {
    const paths = ["data/Map002.json", "backup/data_2018-06-13/Map002.json", "backup/data_2018-05-06/Map002.json", "Backups/Map002.json"];
    const plan = planScan(paths);
    expect(paths.map((p) => plan.skipKind(p))).toEqual([null, "backup", "backup", "backup"]);
    const scanned = paths.filter((p) => !plan.skipKind(p)).flatMap((p) => extractFile(p, MAP).sections);
    const [candidate] = classify(scanned, { tags: [], locations: [] });
    const alone = classify(extractFile("data/Map002.json", MAP).sections, { tags: [], locations: [] })[0];
    expect(candidate.confidence).toBe(alone.confidence);
    expect(candidate.sourceFiles).toEqual(["data/Map002.json"]);
  });

  test("other JSON named like a map is left to the JSON reader", () => {
    const { sections } = extractFile("levels/Map001.json", JSON.stringify({ title: "The Old Mill", description: "A mill on the river where the miller's ghost still turns the wheel at night." }));
    expect(sections.length).toBe(1);
    expect(sections[0].kind).not.toBe("rpgmaker-event");
  });
});
