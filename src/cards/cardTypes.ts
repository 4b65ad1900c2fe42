/** The 400s a refused import answers with; details name every problem ("data.name: required ..."). */
export const INVALID_CARD = "Invalid character card";
export const INVALID_LOREBOOK = "Invalid lorebook";

/** One lorebook entry, normalised from any of the formats (card book, V3 lorebook, SillyTavern World Info). */
export interface BookEntry {
  /** stable identity within the book: the entry's id/uid, else its position */
  id: string;
  /** where it came from, for problems ("character_book.entries[3]") */
  path: string;
  name: string | null;
  keys: string[];
  secondaryKeys: string[];
  content: string;
  enabled: boolean;
  constant: boolean;
  selective: boolean;
  /** how secondary keys combine with the primary ones (SillyTavern's selectiveLogic) */
  selectiveLogic: SelectiveLogic;
  /** SillyTavern's timed effects (null: off), in its own units */
  sticky: number | null;
  cooldown: number | null;
  delay: number | null;
  insertionOrder: number;
  /** settings of the entry Lorehold has no equivalent for, each named with its value ("probability: 40") */
  unmapped: string[];
}

/** SillyTavern's selectiveLogic values: 0 AND ANY, 1 NOT ALL, 2 NOT ANY, 3 AND ALL. */
export const SELECTIVE_LOGIC = ["AND ANY", "NOT ALL", "NOT ANY", "AND ALL"] as const;
export type SelectiveLogic = (typeof SELECTIVE_LOGIC)[number];

/** What one lorebook entry became, and what of it could not come along (the import's answer lists each). */
export interface EntryReport {
  /** where the entry is in the file ("data.character_book.entries[3]") */
  entry: string;
  name: string;
  /** the document's key, or null when the entry became the mind's always-known text */
  documentKey: string | null;
  /** how its settings were carried over */
  mapped: string[];
  /** settings with no Lorehold equivalent, left out */
  notMapped: string[];
}

export interface Book {
  name: string | null;
  entries: BookEntry[];
}

/** A character card of any version, normalised (V1 cards have only the first six text fields). */
export interface Card {
  spec: "chara_card_v1" | "chara_card_v2" | "chara_card_v3";
  name: string;
  description: string;
  personality: string;
  scenario: string;
  firstMes: string;
  mesExample: string;
  systemPrompt: string;
  postHistoryInstructions: string;
  creatorNotes: string;
  creator: string;
  characterVersion: string;
  alternateGreetings: string[];
  tags: string[];
  book: Book | null;
}

export type Parsed = { kind: "card"; card: Card } | { kind: "lorebook"; book: Book };
