import type { ServerCalls, ServerToken } from "./completeStructured.ts";

const MAX_SPELLINGS = 256;
const NEWLINE = "\n";

interface Spellings {
  /** the server's tokens of a newline alone (the text a spelling is read after), once asked */
  newline?: Promise<ServerToken[]>;
  /** a choice set's spellings, by the set (the same names come back every turn) */
  sets: Map<string, Promise<number[][]>>;
}

const byServer = new WeakMap<object, Spellings>();

const encoder = new TextEncoder();

/** Whether the tokens' pieces are exactly the text's bytes (unknown pieces, from a server without `with_pieces`, never are). */
function spells(tokens: ServerToken[], text: string): boolean {
  const want = encoder.encode(text);
  let at = 0;
  for (const t of tokens) {
    if (!t.piece) return false;
    for (const byte of t.piece) if (want[at++] !== byte) return false;
  }
  return at === want.length;
}

/**
 * Texts as the server's tokens that read back as exactly them after other text — how a grammar writes them in the
 * middle of a reply: the server's own tokens where they spell the text, else the text's tokens after a newline
 * (the newline's taken off), which drops the leading space a SentencePiece tokenizer puts at a text's start (the
 * local engine spells a tail's choices the same way: ForcedText.spell). Else the server's tokens as they are.
 * Kept per `owner` (a backend) and set of texts; a failed request is not kept.
 */
export function serverSpellings(owner: object, texts: string[], server: Pick<ServerCalls, "tokenize">): Promise<number[][]> {
  let cache = byServer.get(owner);
  if (!cache) byServer.set(owner, (cache = { sets: new Map() }));
  const key = texts.join("\u0000");
  let spelled = cache.sets.get(key);
  if (spelled) {
    cache.sets.delete(key);
  } else {
    const c = cache;
    const newline = () => (c.newline ??= server.tokenize(NEWLINE).catch((e) => ((c.newline = undefined), Promise.reject(e))));
    spelled = Promise.all(texts.map((text) => spell(text, server, newline)));
    spelled.catch(() => c.sets.get(key) === spelled && c.sets.delete(key));
    if (cache.sets.size >= MAX_SPELLINGS) cache.sets.delete(cache.sets.keys().next().value!);
  }
  cache.sets.set(key, spelled);
  return spelled;
}

async function spell(text: string, server: Pick<ServerCalls, "tokenize">, newline: () => Promise<ServerToken[]>): Promise<number[]> {
  const own = await server.tokenize(text);
  if (spells(own, text)) return own.map((t) => t.id);
  const [nl, after] = await Promise.all([newline(), server.tokenize(NEWLINE + text)]);
  const rest = after.slice(nl.length);
  if (nl.length > 0 && nl.every((t, i) => after[i]?.id === t.id) && spells(rest, text)) return rest.map((t) => t.id);
  return own.map((t) => t.id);
}
