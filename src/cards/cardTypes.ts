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
  insertionOrder: number;
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
