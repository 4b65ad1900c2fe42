import { qwenFixture, realFixtures } from "../../test/realmodel/realFixtures.ts";

/** The fixture model a bench runs on: `qwen` (Qwen2.5-Coder-0.5B-Instruct) or, by default, SmolLM2-135M-Instruct. */
export function benchModelPath(model: string | undefined): string {
  if (model === "qwen") {
    const qwen = qwenFixture();
    if (!qwen) throw new Error("the Qwen2.5-Coder-0.5B fixture is missing: sh scripts/fetch-fixtures.sh");
    return qwen;
  }
  const fx = realFixtures();
  if (!fx) throw new Error("real fixtures missing: sh scripts/fetch-fixtures.sh");
  return fx.smol;
}
