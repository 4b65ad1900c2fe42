import { describe, expect, test } from "bun:test";
import { emptyBehaviour, toForm, toJson } from "../../studio/components/behaviour/behaviourForm.ts";
import { SHOPKEEPER } from "../behaviour/fixtures.ts";

describe("the mind editor's behaviour form", () => {
  test("a behaviour reads into the form and back as authored, its action gate included", () => {
    expect(toJson(toForm({ ...SHOPKEEPER, actionGate: 0.75 }))).toEqual({ ...SHOPKEEPER, actionGate: 0.75 });
    expect(toForm({ ...SHOPKEEPER, actionGate: 0.75 }).actionGate).toBe("0.75");
  });

  test("an empty gate leaves it out (the server's default); a half-typed one goes as typed, for the server to name", () => {
    const f = { ...emptyBehaviour(), enabled: true };
    expect(toJson(f)).not.toHaveProperty("actionGate");
    expect(toJson({ ...f, actionGate: "0.4" })!.actionGate).toBe(0.4);
    expect(toJson({ ...f, actionGate: "0.4x" })!.actionGate).toBe("0.4x");
  });
});
