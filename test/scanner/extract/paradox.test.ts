import { describe, expect, test } from "bun:test";
import { extractFile, planScan } from "../../../src/scanner/extract/index.ts";

const ORIGINS = `\uFEFFl_english:
 # Origins
 turian_hier_origin:0 "Blood on the Whetstone"
 turian_hier_origin_desc:0 "The Turian Hierarchy was forged and tempered in the fires of war. The §YPrimarch§! of $COUNTRY$ rules from [Root.GetCapitalName].\\nTheir legions answer to no "council" but their own."
 turian_hier_origin_tooltip:0 "Gain §G+10%§! $army_damage$ on every planet you own."
 mod_pop_growth_mult:0 "Pop Growth Speed"
 planet_forced_growth_desc: "planet_forced_growth_desc"
 EMPIRE_SHIP_SIZE_LIMIT_REACHED:0 "The Galactic Imperium can only support $SIZE$-size ships."
 START_SCREEN_salarian_union:0 "Dalatrass, for over a millennium Salarian intelligence has been the eyes and ears of the Citadel."
`;

describe("Paradox localisation", () => {
  test("entries are parsed (not YAML) and cleaned of variables, colours, scopes and \\n", () => {
    const { sections, skipped } = extractFile("mod/localisation/english/btr_origins_l_english.yml", ORIGINS);
    expect(skipped.some((s) => s.reason.startsWith("Parse error"))).toBe(false);
    const turian = sections.find((s) => s.text.includes("Whetstone"));
    expect(turian?.text).toBe(
      "Blood on the Whetstone\n\nThe Turian Hierarchy was forged and tempered in the fires of war. The Primarch of rules from.\nTheir legions answer to no \"council\" but their own.",
    );
    expect(sections.some((s) => s.text.includes("Dalatrass, for over a millennium"))).toBe(true);
  });

  test("tooltips, modifiers, placeholders and interface strings are not lore", () => {
    const { sections, skipped } = extractFile("mod/localisation/english/btr_origins_l_english.yml", ORIGINS);
    const all = sections.map((s) => s.text).join("\n");
    expect(all).not.toContain("Gain");
    expect(all).not.toContain("Pop Growth Speed");
    expect(all).not.toContain("planet_forced_growth_desc");
    expect(all).not.toContain("Galactic Imperium");
    expect(skipped.map((s) => s.reason)).toEqual(expect.arrayContaining(["Game mechanics (tooltips, modifiers, effects: not lore)", "UI, settings or developer text (not lore)"]));
  });

  test("a file without the l_<language> header is read as YAML as before", () => {
    const { sections } = extractFile("data/lore.yml", "title: The Citadel\ndescription: A vast station at the heart of the galaxy, built by a vanished people long before anyone came.\n");
    expect(sections[0].kind).toBe("yaml-object");
  });

  test("the l_<language> file name is the locale: other languages are translations, never candidates", () => {
    const paths = ["mod/localisation/english/btr_origins_l_english.yml", "mod/localisation/german/btr_origins_l_german.yml", "mod/localisation/french/btr_origins_l_french.yml", "mod/localisation/braz_por/btr_origins_l_braz_por.yml", "mod/localisation/simp_chinese/btr_origins_l_simp_chinese.yml", "mod/common/origins.txt"];
    const plan = planScan(paths);
    expect(plan.sourceLanguage).toBe("en");
    expect(paths.map((p) => plan.translationOf(p)?.language ?? null)).toEqual([null, "de", "fr", "pt-BR", "zh", null]);
    expect(plan.variantsOf(paths[0]).map((v) => v.language).sort()).toEqual(["de", "fr", "pt-BR", "zh"]);
  });

  test("nine equal language folders beside a smaller English one: English is the source, one stand-in for a file only they hold", () => {
    const langs = ["german", "french", "spanish", "russian", "polish", "japanese", "korean", "braz_por", "simp_chinese"];
    const paths = [
      "loc/english/tips_l_english.yml",
      ...langs.flatMap((l) => [`loc/${l}/tips_l_${l}.yml`, `loc/${l}/origins_l_${l}.yml`, `loc/${l}/traits_l_${l}.yml`]),
    ];
    const plan = planScan(paths);
    expect(plan.sourceLanguage).toBe("en");
    const origins = paths.filter((p) => p.includes("/origins_"));
    // The English text kept only in the other languages' folders is scanned once, not nine times.
    expect(origins.filter((p) => plan.translationOf(p) === null).length).toBe(1);
    expect(paths.filter((p) => p.includes("/tips_") && plan.translationOf(p) === null)).toEqual(["loc/english/tips_l_english.yml"]);
  });
});

test("a mod's replace/ copy of the base game's whole table is skipped; a short override is read", () => {
  const many = "l_english:\n" + Array.from({ length: 1200 }, (_, i) => ` ethic_${i}:0 "The only true virtues are courage and discipline, number ${i}."`).join("\n");
  const copy = extractFile("mod/localisation/english/replace/l_english.yml", many);
  expect(copy.sections).toEqual([]);
  expect(copy.skipped[0].reason).toBe("Skipped: the base game's localisation copied into a mod's replace/ folder (1200 entries)");
  const override = extractFile("mod/localisation/english/replace/mod_l_english.yml", 'l_english:\n ethic_militarist:0 "Militarist"\n ethic_militarist_desc:0 "The only true virtues are courage and discipline, and channeled properly they can overcome any obstacle."\n NAME_Merope:0 "Merope"\n');
  expect(override.sections[0].text).toBe("Militarist\n\nThe only true virtues are courage and discipline, and channeled properly they can overcome any obstacle.");
  // A lone name is a short entry of the file's list, not a candidate titled by its key.
  expect(override.sections.map((s) => s.title)).not.toContain("NAME_Merope");
});
