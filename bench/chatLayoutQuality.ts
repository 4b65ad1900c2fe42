/**
 * bench/quality.ts with a chat model's prompt re-laid (src/llm/chatLayout.ts): `--chat-layout <name>` from
 * bench/support/baseLayouts.ts (CHAT_LAYOUTS), every other flag as quality.ts takes it. Set in this process only,
 * before the app is made, so the whole product runs on it (cached prefix, guard, resamples) inside the model's own
 * template; a base model's transcript is unchanged, and the naive arm's prompt (no sections) reads the same.
 *
 *   bun bench/chatLayoutQuality.ts --chat-layout naiveChat --models smol --embedders minilm --worlds tuning --seeds 1,2,3 \
 *     --by-mind --seeds-together --skip retrieval,speed,memory,conversation,scoping,secrets,parroting --no-naive --out r11/smol-naiveChat
 */
import { CHAT_LAYOUT } from "../src/llm/chatLayout.ts";
import { CHAT_LAYOUTS } from "./support/baseLayouts.ts";

const i = process.argv.indexOf("--chat-layout");
const name = i >= 0 ? process.argv[i + 1] : "";
const layout = CHAT_LAYOUTS[name];
if (!layout) {
  console.error(`bench/chatLayoutQuality: --chat-layout one of ${Object.keys(CHAT_LAYOUTS).join(", ")}`);
  process.exit(2);
}
process.argv.splice(i, 2);
CHAT_LAYOUT.layout = layout;
console.error(`chat layout ${name}: ${JSON.stringify(layout)}`);
await import("./quality.ts");
