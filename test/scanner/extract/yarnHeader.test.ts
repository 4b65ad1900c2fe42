import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";

const NODES = "title: q_start\nposition: 140,166\n---\n<<quest_start the_first_fight>>\n===\n\ntitle: Talk\n---\nGuard: An enemy of the woods is here in our village.\n===\n";
const HEADER = "questId: the_first_fight\ndisplayName: The first Fight\njournalText: Get rid of the threat in the woods\nreward_money: 100\nstep: talk Npc-5\nstep_journal: Talk to the guard at the gate\n";

describe("Yarn: a file's header block before its first node (quest files)", () => {
  test("a header block, a blank line, then nodes: its prose is one section titled by its display name", () => {
    const r = extractFile("assets/quests/the_first_fight.yarn", `${HEADER}\n${NODES}`);
    expect(r.sections.map((s) => [s.title, s.text])).toEqual([
      ["The first Fight", "Get rid of the threat in the woods\nTalk to the guard at the gate"],
      ["Talk", "Guard: An enemy of the woods is here in our village."],
    ]);
    expect(r.skipped.map((s) => s.reason).join(" ")).not.toContain("Parse error");
  });

  test("a header block running straight into the first node's headers is read the same", () => {
    const r = extractFile("assets/quests/the_first_fight.yarn", `${HEADER}${NODES}`);
    expect(r.sections.map((s) => s.title)).toEqual(["The first Fight", "Talk"]);
    expect(r.sections[0].text).toContain("Get rid of the threat in the woods");
  });

  test("with no name header the file's name titles it; a header of numbers and ids alone adds nothing", () => {
    const named = extractFile("quests/welcome.yarn", `questId: welcome\njournalText: Get to know the locals and settle in.\n\n${NODES}`);
    expect(named.sections[0]).toMatchObject({ title: "welcome", text: "Get to know the locals and settle in." });
    const bare = extractFile("quests/plain.yarn", `questId: plain\nreward_money: 50\n\n${NODES}`);
    expect(bare.sections.map((s) => s.title)).toEqual(["Talk"]);
  });

  test("an ordinary Yarn file (title first, tags before a title) is read as before", () => {
    const r = extractFile("dialogue/guard.yarn", `tags: gate\ntitle: Gate\n---\nGuard: Don't anger the guard!\n===\n`);
    expect(r.sections.map((s) => [s.title, s.text, s.hints?.tags])).toEqual([["Gate", "Guard: Don't anger the guard!", ["gate"]]]);
  });
});
