import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";

const conversation = (speakerKey: string, textKey: string) =>
  JSON.stringify([
    {
      id: 0,
      conversation: [
        { id: 1, [speakerKey]: "Gwenaël", [textKey]: "Loïc, réveille-toi, la lampe du phare n'est pas allumée !" },
        { id: 2, [speakerKey]: "Loïc", [textKey]: "Mélanie Le Borgne qui vit sur la jetée ? Je ne me souviens pas d'elle.", action: "aller à la radio" },
        { id: 3, [speakerKey]: "Gwenaël", [textKey]: "Trêve de bavardages, il y a beaucoup de brouillard ce soir." },
      ],
    },
  ]);

describe("dialogue JSON: the speaker field in the common languages", () => {
  const cases: [string, string][] = [
    ["nom", "text"],
    ["personnage", "texte"],
    ["sprecher", "text"],
    ["nombre", "texto"],
    ["personaje", "texto"],
    ["orador", "texto"],
    ["personaggio", "testo"],
    ["speaker", "line"],
    ["Personnage", "Réplique"],
    ["名前", "台词"],
  ];
  for (const [speaker, text] of cases) {
    test(`${speaker}/${text}: lines grouped by speaker, one candidate each, titled by the speaker`, () => {
      const r = extractFile("resources/data/dialogs.json", conversation(speaker, text));
      const spoken = r.sections.filter((s) => s.reviewKind === "dialogue");
      expect(spoken.map((s) => s.title)).toEqual(["Gwenaël", "Loïc"]);
      expect(spoken[0].text).toContain("la lampe du phare n'est pas allumée");
      expect(spoken[0].text).toContain("beaucoup de brouillard");
      expect(spoken[1].text).toContain("Mélanie Le Borgne qui vit sur la jetée");
      expect(r.sections.some((s) => /#\d+$/.test(s.title))).toBe(false);
    });
  }

  test("a list of things with a name and a text is not dialogue (no name comes back)", () => {
    const items = JSON.stringify([
      { nom: "Épée", texte: "Une lame forgée dans l'ancienne abbaye par les forgerons du fleuve." },
      { nom: "Bouclier", texte: "Un bouclier rond de chêne et de fer des guerres de la frontière." },
    ]);
    const r = extractFile("data/objets.json", items);
    expect(r.sections.map((s) => s.title)).toEqual(["Épée", "Bouclier"]);
    expect(r.sections.every((s) => s.reviewKind !== "dialogue")).toBe(true);
  });

  test("a speaker's lines past a few thousand characters are cut into parts, never one line a candidate", () => {
    const lines = Array.from({ length: 120 }, (_, i) => ({ sprecher: i % 2 ? "Anna" : "Bruno", text: `Zeile ${i}: der Nebel über dem Hafen wird heute Nacht dichter als je zuvor.` }));
    const r = extractFile("dialoge.json", JSON.stringify(lines));
    expect(r.sections.length).toBeLessThan(10);
    expect(new Set(r.sections.map((s) => s.title))).toEqual(new Set(["Anna", "Bruno"]));
  });
});
