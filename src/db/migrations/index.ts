import { initial } from "./001_initial.ts";
import { scanner } from "./002_scanner.ts";
import { chunkSearch } from "./003_chunk_search.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [initial, scanner, chunkSearch];
