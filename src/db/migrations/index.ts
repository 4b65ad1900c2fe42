import { initial } from "./001_initial.ts";
import { scanner } from "./002_scanner.ts";
import { chunkSearch } from "./003_chunk_search.ts";
import { scanReview } from "./004_scan_review.ts";
import { sharedLore } from "./014_shared_lore.ts";
import { sharedLoreStamp } from "./016_shared_lore_stamp.ts";

import type { Migration } from "./migration.ts";

export type { Migration };

export const MIGRATIONS: Migration[] = [initial, scanner, chunkSearch, scanReview, sharedLore, sharedLoreStamp];
