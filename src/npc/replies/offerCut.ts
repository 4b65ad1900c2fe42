import { sentenceEnds } from "./sentences.ts";
import { words } from "./wordOverlap.ts";

/**
 * An assistant's offer of help, as a whole sentence: what a chat-tuned model closes a reply with ("Hi Rosalind Tey!
 * How can I assist you today?"). Only the assistant's register: "assist" and "assistance", "How can I help you
 * today?", "anything else you'd like to know", "feel free to ask". A character's own offer stays ("What can I do for
 * you?", "How can I help you find the ferry?", "If you have any questions, ask the reeve."). Each is matched from a
 * sentence's first word.
 */
export const OFFERS: RegExp[] = [
  // "How can I assist you today?", "How may I be of assistance?", "How can I assist you with the ferry?"
  /^how (?:can|may|might|could) I (?:be of )?assist(?:ance)?\b/i,
  // "How can I help you today?", "How may I help you?" (as the meta detector has always counted them)
  /^how (?:can|may) I help you(?: today)?\s*\?/i,
  // "What can I help you with today?", "What can I assist you with?"
  /^what can I (?:assist you with|help you with today)\b/i,
  // "Is there anything (else) I can help you with?", "Is there anything else you'd like to know?"
  /^(?:is there )?anything (?:else |specific )?(?:(?:that )?I (?:can|could|may) (?:assist|help) you with|(?:that )?you(?:'d| would) like to (?:know|discuss|ask))\b/i,
  // "Let me know if you have any other questions.", "Feel free to ask if you need anything else."
  /^(?:please )?(?:let me know if (?:you have|you need|there's|there is) any(?:thing)?|feel free to (?:ask|let me know|reach out)|don't hesitate to (?:ask|reach out|let me know))\b/i,
  // "If you have any more questions, feel free to ask!"
  /^if you have any (?:other |more |further )?questions\b[^.!?]*\b(?:feel free|don't hesitate|let me know)\b/i,
  // "I'm here to help.", "I'm glad I could assist you today."
  /^I(?:'m| am) (?:here to (?:help|assist)|glad I (?:could|was able to) (?:assist|help))\b/i,
];

/** The offer a sentence opens with, or null. */
export function offerIn(sentence: string): string | null {
  const s = sentence.trim().replace(/^["'“‘*_(]+/, "").replace(/[’‘]/g, "'");
  for (const re of OFFERS) {
    const m = re.exec(s);
    if (m) return m[0];
  }
  return null;
}

/**
 * Where a reply's offer of help starts, when something stands before it: the offset of the first sentence after the
 * first that opens with one (OFFERS), or null. The reply is cut there, as a loop in its tail is (loopCut.ts): what
 * stood before the offer is the character's reply ("Hi Rosalind Tey!"), and the guard judges it as any other. An
 * offer as the first sentence is left to the guard (the meta detector counts it: nothing stands to keep). `ends`
 * are the reply's sentence ends (sentences.ts); the sentence being written counts too, so a stream stops as soon as
 * its offer is written.
 */
export function offerCut(text: string, ends: number[] = sentenceEnds(text)): number | null {
  let from = ends[0] ?? text.length;
  for (let k = 1; k <= ends.length; k++) {
    const to = k < ends.length ? ends[k] : text.length;
    if (offerIn(text.slice(from, to)) !== null && text.slice(0, from).trim() !== "") return from;
    from = to;
  }
  return null;
}

/** The first words of every offer, for holding a streamed sentence back while it may still become one. */
const OFFER_STARTS = [
  "how can i", "how may i", "how might i", "how could i",
  "what can i assist", "what can i help", "is there anything", "anything else", "anything specific",
  "let me know", "please let me know", "feel free", "please feel free", "don't hesitate", "please don't hesitate",
  "if you have any", "i'm here to", "i am here to", "i'm glad i could", "i'm glad i was", "i am glad i",
].map(words);

/**
 * The sentence being written after the reply's first may still turn out an offer of help: its words so far are an
 * offer's first words, or the start of them. A stream holds it back until it is told (ReplyShaper).
 */
export function mayOffer(text: string, ends: number[]): boolean {
  const last = ends.at(-1);
  if (last === undefined) return false;
  const tail = words(text.slice(last));
  if (tail.length === 0) return false;
  return OFFER_STARTS.some((o) => {
    const n = Math.min(tail.length, o.length);
    for (let i = 0; i < n; i++) {
      const partial = i === tail.length - 1 && tail.length <= o.length;
      if (partial ? !o[i].startsWith(tail[i]) : tail[i] !== o[i]) return false;
    }
    return true;
  });
}
