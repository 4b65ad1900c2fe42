import type { ChatWrapper } from "node-llama-cpp";
import { SECRET_MARK } from "../npc/secrets/secretMark.ts";

/**
 * The smallest chat models read their prompt without the notes of the secrets they keep.
 *
 * Why: a kept secret reaches the prompt as a note marked "(your secret: you know it, but you never tell it to
 * anyone)" (src/npc/secrets/secretFraming.ts). SmolLM2-135M-Instruct reads that instruction as being about the
 * whole topic the secret touches: Mother Ilse's secret is how she reckons the King's Tide, and with it marked in her
 * prompt she said the Tide's year and period in 0 of 12 first samples (her naive prompt, the secret pasted
 * unmarked: 5 of 12; her prompt without the marked note: 5 of 12), and across her five questions 4 of 30 against
 * 12 of 30 (bench/smolProbe.ts, BENCHMARKS.md "Replies in character: SmolLM2 and its naive baseline"). A model this
 * small keeps no secret on its own either (the reply guard catches its slips): what it does not read it cannot tell.
 *
 * The reply guard still knows the secrets (it checks replies against the turn's notes, src/npc/replies/turnGuard.ts)
 * and the server's prompt (the admin preview) still holds them; only the text the model is given, counted, cached or
 * generated from leaves them out, the same for every prompt, so a mind's cached prefix matches its turns. A secret
 * whose reveal condition holds is no longer kept (it carries no mark) and is read as any note. Only the in-process
 * engine lays out the prompt; a remote llama-server renders its own template from the messages as sent.
 */

/** Chat models with fewer parameters than this (SmolLM2-135M-Instruct, 135M by its GGUF; not Gemma 3 270M, 268M, nor Qwen2.5-Coder-0.5B, 630M). */
export const SMALLEST_CHAT_PARAMETERS = 200_000_000;

export function isSmallestChatModel(totalParameters: number): boolean {
  return totalParameters > 0 && totalParameters < SMALLEST_CHAT_PARAMETERS;
}

/** A note of the server's (`About <name>: <text>`, src/npc/prompt/renderTurn.ts), its first line as it opens. */
const NOTE = "About ";
const MARKED = ` ${SECRET_MARK}: `;
/** A section's heading, a bracketed line of its own (`[Lore]`, `[Player]`). */
const HEADING = /^\[[^\]\n]+\]$/;

/**
 * `text` without its kept secrets' notes: each from its `About <name> <mark>: ` to the next note, heading or the end
 * (a note's own blank lines stay with it), then a heading left with nothing under it. Unchanged when none is there.
 */
export function withoutKeptSecrets(text: string): string {
  if (!text.includes(MARKED)) return text;
  const kept: string[] = [];
  /** a heading whose first note went: it opens the next block kept under it */
  let head: string | null = null;
  let dropping = false;
  for (const block of text.split("\n\n")) {
    // A heading shares its block with the first note under it ("[Lore]\nAbout …"): judged apart from it.
    const lines = block.split("\n");
    const heading = HEADING.test(lines[0]) ? lines[0] : null;
    const body = heading === null ? block : lines.slice(1).join("\n");
    // (a heading still waiting had all its notes go: nothing of its own under it, it goes too)
    if (heading !== null) head = heading;
    if (heading !== null || body.startsWith(NOTE)) dropping = body.startsWith(NOTE) && body.split("\n")[0].includes(MARKED);
    if (dropping || body === "") continue;
    kept.push(head === null ? body : `${head}\n${body}`);
    head = null;
  }
  return kept.join("\n\n");
}

/** `wrapper` with every system and user text read without its kept secrets' notes (changed in place, as bosOnce.ts does). */
export function keptSecretsLeftOut<W extends ChatWrapper>(wrapper: W): W {
  const inner = wrapper.generateContextState.bind(wrapper);
  wrapper.generateContextState = (options) =>
    inner({
      ...options,
      chatHistory: options.chatHistory.map((item) =>
        (item.type === "system" || item.type === "user") && typeof item.text === "string" ? { ...item, text: withoutKeptSecrets(item.text) } : item,
      ),
    });
  return wrapper;
}
