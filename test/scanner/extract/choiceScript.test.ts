import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";

const SCENE = `*comment The wise god's fate
*temp kvasir_text
*if Dream=100
    You see Kvasir, the wise god, hanging over a large vat with his throat cut. \${name}, the dwarves are laughing.

    *gosub kvasir_history
    So, what are you going to do about your vision?
    *choice
        #I'll find Kvasir myself.
            You set off out of Asgard at once.
            *if Heimdall<40
                Heimdall approaches you as you set foot on Bifrost, the rainbow bridge.
                *choice
                    #Tell him the truth.
                        *set Heimdall %+10
                        He calms down, and lets you pass.
                        *goto saving_kvasir
                    *selectable_if (Charm > 40) #Charm him.
                        He laughs and waves you on.
                        *goto saving_kvasir
        #I'll tell Odin.
            *set Odin %+10
            Odin listens to you, nodding seriously.
            *page_break
            *finish Get back to work.
*label saving_kvasir
It can get cold sitting on watch on the Bifrost at night, and the road to Svartalfheim is long.
*page_break Onward
`;

const STATS = `*stat_chart
  text Name
  percent Magic
*label gods
*choice
  #Heimdall
    Heimdall is the watchman of the gods. He keeps watch over all the nine worlds.

    He \${heimdall_text}
    *page_break
    *goto gods
  #Idunn
    Idunn is the holder of the Golden Apples - the secret behind the gods' eternal youth.
    *page_break
    *goto gods
`;

describe("ChoiceScript", () => {
  test("commands leave the prose; sections are titled by scene, label and first-level option", () => {
    const { sections } = extractFile("scenes/kvasir.txt", SCENE);
    expect(sections.map((s) => s.title)).toEqual(["kvasir", "kvasir › I'll find Kvasir myself.", "kvasir › I'll tell Odin.", "kvasir: saving_kvasir"]);
    const all = sections.map((s) => s.text).join("\n");
    expect(all).not.toMatch(/^\*|\*(?:choice|set|goto|if|page_break|finish|gosub|comment|temp|label)\b/m);
    expect(all).not.toContain("${");
    expect(all).not.toContain("Get back to work");
    expect(sections[0].text).toBe("You see Kvasir, the wise god, hanging over a large vat with his throat cut., the dwarves are laughing.\n\nSo, what are you going to do about your vision?");
  });

  test("choice options are kept as the player's answers, deeper choices inside their branch", () => {
    const { sections } = extractFile("scenes/kvasir.txt", SCENE);
    expect(sections[1].text).toBe(
      "> I'll find Kvasir myself.\nYou set off out of Asgard at once.\nHeimdall approaches you as you set foot on Bifrost, the rainbow bridge.\n> Tell him the truth.\nHe calms down, and lets you pass.\n> Charm him.\nHe laughs and waves you on.",
    );
    expect(sections[1].kind).toBe("choicescript-passage");
  });

  test("a stats screen's bios are one section each, its chart rows left out", () => {
    const { sections } = extractFile("scenes/choicescript_stats.txt", STATS);
    expect(sections.map((s) => s.title)).toEqual(["choicescript_stats: gods › Heimdall", "choicescript_stats: gods › Idunn"]);
    expect(sections[0].text).toBe("> Heimdall\nHeimdall is the watchman of the gods. He keeps watch over all the nine worlds.\n\nHe");
    expect(sections.map((s) => s.text).join("\n")).not.toContain("percent Magic");
  });

  test("prose with an odd asterisk line is still plain text", () => {
    const text = "The Old Mill\n\n*sigh* The miller set the stone turning again, as his father had, and his father's father before him.\n\n*If only* he thought.\n";
    const { sections } = extractFile("story/mill.txt", text);
    expect(sections.every((s) => s.kind === "prose")).toBe(true);
  });
});

test("ChoiceScript's template licence notice in startup.txt is boilerplate", () => {
  const startup = `*title In the Halls of Asgard\n*scene_list\n  startup\n  kvasir\n*create name "???"\n\nWelcome to your very first ChoiceScript game!\n\nDan Fabulich licenses this file to you under the\nChoiceScript License, Version 1.0.\n*link http://www.choiceofgames.com/LICENSE-1.0.txt\n*label begin\nLoki is in trouble again, and the whole of Asgard knows it before breakfast.\n`;
  const { sections, skipped } = extractFile("scenes/startup.txt", startup);
  expect(sections.map((s) => [s.title, s.text])).toEqual([["startup: begin", "Loki is in trouble again, and the whole of Asgard knows it before breakfast."]]);
  expect(skipped.map((s) => s.reason)).toContain("Boilerplate (license header)");
});

test("a branch holding only the player's answer is no candidate", () => {
  const scene = `*label brokk\nBrokk glares at you across the forge, hammer raised, sparks still falling.\n*choice\n  #Walk out.\n    *goto home\n  #Stay and argue.\n    You stay, and the dwarf laughs at your stubbornness before he turns back to his work.\n`;
  const { sections } = extractFile("scenes/hammer.txt", scene);
  expect(sections.map((s) => s.title)).toEqual(["hammer: brokk", "hammer: brokk › Stay and argue."]);
});
