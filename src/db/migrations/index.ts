import { initial } from "./001_initial.ts";
import { scanner } from "./002_scanner.ts";
import { chunkSearch } from "./003_chunk_search.ts";
import { scanReview } from "./004_scan_review.ts";
import { sharedLore } from "./014_shared_lore.ts";
import { pendingSummaries } from "./015_pending_summaries.ts";
import { sharedLoreStamp } from "./016_shared_lore_stamp.ts";
import { worldState } from "./019_world_state.ts";
import { behaviour } from "./020_behaviour.ts";
import { secretDocuments } from "./021_secret_documents.ts";
import { loreTests } from "./022_lore_tests.ts";
import { events } from "./024_events.ts";
import { eventPackKeys } from "./025_event_pack_keys.ts";
import { pendingDocuments } from "./028_pending_documents.ts";
import { scenes } from "./026_scenes.ts";
import { secretReveal } from "./030_secret_reveal.ts";
import { loreTestCandidates } from "./031_lore_test_candidates.ts";
import { documentPages } from "./033_document_pages.ts";
import { loreRevisions } from "./034_lore_revisions.ts";
import { memoryVectors } from "./035_memory_vectors.ts";
import { memoryVectorFillProgress } from "./036_memory_vector_fill_progress.ts";
import { worldMemoryWords } from "./037_world_memory_words.ts";
import { memoryVectorQueue } from "./039_memory_vector_queue.ts";
import { tokenCounts } from "./040_token_counts.ts";

import type { Migration } from "./migration.ts";

export type { Migration };

export const MIGRATIONS: Migration[] = [initial, scanner, chunkSearch, scanReview, sharedLore, pendingSummaries, sharedLoreStamp, worldState, behaviour, secretDocuments, loreTests, events, eventPackKeys, scenes, pendingDocuments, secretReveal, loreTestCandidates, documentPages, loreRevisions, memoryVectors, memoryVectorFillProgress, worldMemoryWords, memoryVectorQueue, tokenCounts];
