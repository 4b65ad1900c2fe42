import { describe, expect, test } from "bun:test";
import { extractFile } from "../../../src/scanner/extract/index.ts";

const NOTE = (title: string | null) => `[gd_scene load_steps=2 format=3 uid="uid://b1"]

[node name="Node2D" type="Node2D"]

${title === null ? "" : `[node name="Title" type="RichTextLabel" parent="."]\noffset_left = 198.0\ntext = "${title}"\n\n`}[node name="Text" type="RichTextLabel" parent="."]
offset_left = 161.0
text = "Le 9 août 1945, un bombardier américain a largué une bombe atomique sur la ville de Nagasaki. Même si les allemands perdent du terrain, la guerre n'est pas finie."
`;

describe("Godot scenes: a text node named for its role", () => {
  test("is titled by its sibling heading node's text, not 'Text'", () => {
    const r = extractFile("scenes/prefabs/Notes/note1.tscn", NOTE("Rapport de transmission du 11 août 1945"));
    const note = r.sections.find((s) => s.text.includes("Nagasaki"));
    expect(note?.title).toBe("Rapport de transmission du 11 août 1945");
  });

  test("with no heading beside it, by the scene's file", () => {
    const r = extractFile("scenes/prefabs/Notes/note1.tscn", NOTE(null));
    expect(r.sections.find((s) => s.text.includes("Nagasaki"))?.title).toBe("note1");
  });
});
