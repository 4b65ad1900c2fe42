import { normalizeKey } from "./text.ts";

/** Keys that name a thing, best first (compared after normalizeKey: case, `_`, `-`, `m_` ignored). */
export const TITLE_KEYS = [
  "title", "displayname", "entityname", "charactername", "npcname", "itemname", "locationname", "fullname", "name",
  "label", "heading", "caption", "header", "speaker", "character", "resname", "id", "key", "slug",
] as const;

/**
 * Who speaks a line, in the languages studios write in. Compared after foldKey (case, accents,
 * separators ignored). "Name" words are speakers only in a list of lines where a name repeats
 * (walkStructured): alone they name a thing.
 */
const SPEAKER_WORDS = new Set([
  // en, fr, de, es, pt, it, nl, pl, ru, ja, zh, ko, tr
  "speaker", "character", "actor", "who", "talker", "narrator",
  "personnage", "locuteur", "interlocuteur", "orateur", "parleur",
  "sprecher", "figur", "charakter", "redner",
  "personaje", "orador", "hablante", "interlocutor",
  "personagem", "falante", "locutor",
  "personaggio", "parlante", "oratore",
  "spreker", "personage",
  "postac", "mowca",
  "персонаж", "говорящий", "спикер",
  "話者", "キャラ", "キャラクター", "発言者",
  "角色", "说话人", "說話人", "说话者", "人物",
  "화자", "캐릭터",
  "konusmaci", "karakter",
]);
const NAME_WORDS = new Set(["name", "nom", "nombre", "nome", "naam", "imie", "имя", "名前", "名字", "名称", "이름", "isim"]);
/** A spoken line's text, in the same languages (English "text", "line", "dialogue" are TEXT_KEYS). */
const LINE_WORDS = new Set([
  "text", "line", "dialogue", "dialog", "message", "content",
  "texte", "ligne", "replique", "dialogue", "phrase", "contenu",
  "zeile", "inhalt",
  "texto", "linea", "dialogo", "frase", "contenido", "conteudo",
  "testo", "battuta",
  "tekst", "kwestia",
  "текст", "реплика", "строка",
  "テキスト", "セリフ", "台詞", "本文",
  "文本", "台词", "对话", "內容", "内容",
  "대사", "텍스트", "내용",
  "metin", "satir",
]);

/** A key compared across languages: case, accents (é → e), `m_` and separators ignored; letters of any script kept. */
export function foldKey(key: string): string {
  return key
    .replace(/^(?:m_|@_)/, "")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** "speaker" for a key that names who speaks, "name" for one that names a thing (or a speaker), else null. */
export function speakerKeyKind(key: string): "speaker" | "name" | null {
  const k = foldKey(key);
  if (SPEAKER_WORDS.has(k)) return "speaker";
  if (NAME_WORDS.has(k)) return "name";
  return null;
}

/** A key holding a spoken line's text (text, texte, texto, 台词 …). */
export function isLineKey(key: string): boolean {
  return LINE_WORDS.has(foldKey(key));
}

/** Keys whose value is prose worth keeping. */
const TEXT_KEYS = new Set([
  "description", "desc", "text", "lore", "bio", "biography", "backstory", "backstorysummary", "background", "history",
  "dialogue", "dialog", "dialogues", "dialogs", "lines", "line", "content", "body", "summary", "synopsis", "story",
  "details", "detail", "notes", "note", "flavor", "flavour", "flavortext", "flavourtext", "quote", "quotes", "message",
  "messages", "personality", "blurb", "tooltip", "tooltiptext", "about", "legend", "rumor", "rumors", "rumour",
  "rumours", "appearance", "journal", "greeting", "greetings", "barks", "prose", "passage", "excerpt", "hints",
  "speakingstyle", "knowledgedescription",
]);
/** "shortDescription", "flavorText", "npcBio", "introDialogue" … */
const TEXT_SUFFIXES = ["description", "desc", "text", "lore", "bio", "story", "dialogue", "dialog", "summary", "history"];

const TITLE_RANK = new Map<string, number>(TITLE_KEYS.map((k, i) => [k, i]));

/** Verdicts per raw key: a structured file repeats the same few keys thousands of times (a 2 MB YAML, ~60 ms). */
const textKeyCache = new Map<string, boolean>();
const titleRankCache = new Map<string, number>();
const CACHE_MAX = 10_000;

export function isTextKey(key: string): boolean {
  let v = textKeyCache.get(key);
  if (v === undefined) {
    const k = normalizeKey(key);
    v = TEXT_KEYS.has(k) || TEXT_SUFFIXES.some((s) => k.length > s.length && k.endsWith(s)) || isLineKey(key);
    if (textKeyCache.size >= CACHE_MAX) textKeyCache.clear();
    textKeyCache.set(key, v);
  }
  return v;
}

/** Rank of a title-like key (lower is better), or -1. */
export function titleRank(key: string): number {
  let v = titleRankCache.get(key);
  if (v === undefined) {
    v = TITLE_RANK.get(normalizeKey(key)) ?? -1;
    // A name or speaker field in another language ranks as its English word.
    if (v < 0) {
      const kind = speakerKeyKind(key);
      if (kind) v = TITLE_RANK.get(kind === "name" ? "name" : "speaker")!;
    }
    if (titleRankCache.size >= CACHE_MAX) titleRankCache.clear();
    titleRankCache.set(key, v);
  }
  return v;
}

/** A title value must read as a name: not empty, not a bare number, GUID or long hex. */
export function usableTitle(v: unknown): string | null {
  if (typeof v !== "string" && typeof v !== "number") return null;
  const s = String(v).replace(/\s+/g, " ").trim();
  if (!s || s.length > 200) return null;
  if (/^-?\d+(?:\.\d+)?$/.test(s) || /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s) || /^[0-9a-f]{16,}$/i.test(s)) return null;
  return s;
}
