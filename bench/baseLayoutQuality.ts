/**
 * bench/quality.ts with another transcript layout in the product (a model without a chat template reads it):
 * `--layout <name>` from bench/support/baseLayouts.ts, every other flag as quality.ts takes it. The layout in use
 * (TRANSCRIPT_LAYOUT) is changed in this process only, before the app is made, so the whole product runs on it:
 * cached prefix, guard and resamples; the naive arm's prompt has no sections and is laid out the same under every
 * layout measured here.
 *
 *   bun bench/baseLayoutQuality.ts --layout naiveLike --models gemma --embedders minilm --worlds tuning --seeds 1,2,3 \
 *     --by-mind --seeds-together --skip retrieval,speed,memory,conversation,scoping,secrets,parroting --no-naive --out r6/naiveLike
 */
import { TRANSCRIPT_LAYOUT } from "../src/llm/transcriptTurn.ts";
import { BASE_LAYOUTS } from "./support/baseLayouts.ts";

const i = process.argv.indexOf("--layout");
const name = i >= 0 ? process.argv[i + 1] : "";
const layout = BASE_LAYOUTS[name];
if (!layout) {
  console.error(`bench/baseLayoutQuality: --layout one of ${Object.keys(BASE_LAYOUTS).join(", ")}`);
  process.exit(2);
}
process.argv.splice(i, 2);
for (const k of Object.keys(TRANSCRIPT_LAYOUT) as (keyof typeof TRANSCRIPT_LAYOUT)[]) delete TRANSCRIPT_LAYOUT[k];
Object.assign(TRANSCRIPT_LAYOUT, layout);
console.error(`layout ${name}: ${JSON.stringify(TRANSCRIPT_LAYOUT)}`);
await import("./quality.ts");
