// GENERATED from Lorehold's OpenAPI document (/swagger/json) by scripts/generate-types.ts. Do not edit:
// regenerate with `UPDATE_SDK_TYPES=1 bun test test/sdk/typesDrift.test.ts` in the Lorehold repository.
/* eslint-disable */

/** Body of POST /v1/events — Tell the world what happened */
export type PostV1EventsBody = {
  /** the game's event type, e.g. theft, fire, greeting */
  type: string;
  /** what happened, in the game's words: the witnesses' memory */
  description: string;
  /** a location id or key */
  location?: string | null;
  /** "location": every mind whose location is the event's */
  witnesses?: string[] | "location";
  /** the player the event is about: the witnesses' memories become this player's memories */
  playerId?: string | null;
  /** 1 (trivia) … 10 (life-changing); default 5 */
  importance?: number;
  /** the game's own time of the event (stored, shown in the log) */
  at?: string | null;
  /** unset keys go; each set key is written, clearing the other keys of its exclusive group; one transaction */
  state?: {
    set?: Record<string, unknown>;
    unset?: string[];
  };
  /** unset keys go; each set key is written, clearing the other keys of its exclusive group; one transaction */
  playerState?: {
    set?: Record<string, unknown>;
    unset?: string[];
  };
  /** true: the first witness says its line now; or the id/key of the mind that speaks */
  react?: boolean | string;
  /** never spread by gossip */
  secret?: boolean;
  /** every mind at the location witnesses it (with the listed ones) */
  public?: boolean;
} | {
  events: Array<{
    /** the game's event type, e.g. theft, fire, greeting */
    type: string;
    /** what happened, in the game's words: the witnesses' memory */
    description: string;
    /** a location id or key */
    location?: string | null;
    /** "location": every mind whose location is the event's */
    witnesses?: string[] | "location";
    /** the player the event is about: the witnesses' memories become this player's memories */
    playerId?: string | null;
    /** 1 (trivia) … 10 (life-changing); default 5 */
    importance?: number;
    /** the game's own time of the event (stored, shown in the log) */
    at?: string | null;
    /** unset keys go; each set key is written, clearing the other keys of its exclusive group; one transaction */
    state?: {
      set?: Record<string, unknown>;
      unset?: string[];
    };
    /** unset keys go; each set key is written, clearing the other keys of its exclusive group; one transaction */
    playerState?: {
      set?: Record<string, unknown>;
      unset?: string[];
    };
    /** true: the first witness says its line now; or the id/key of the mind that speaks */
    react?: boolean | string;
    /** never spread by gossip */
    secret?: boolean;
    /** every mind at the location witnesses it (with the listed ones) */
    public?: boolean;
  }>;
};

/** Query of GET /v1/lore/documents — Lore Documents (list form), newest first; full-text search over name and content */
export type GetV1LoreDocumentsQuery = {
  status?: "PENDING" | "PROCESSING" | "COMPLETED" | "FAILED";
  tag?: string;
  search?: string;
  /** default 50, max 100 */
  limit?: number;
  /** default 0 */
  offset?: number;
};

/** 200 response of GET /v1/lore/documents — Lore Documents (list form), newest first; full-text search over name and content */
export type GetV1LoreDocumentsResponse = {
  success: true;
  documents: Array<{
    id: string;
    name: string;
    status: "PENDING" | "PROCESSING" | "COMPLETED" | "FAILED";
    chunkCount: number;
    createdAt: string;
    updatedAt: string;
    processedAt: string | null;
    tags: Array<{
      id: string;
      name: string;
      color: string | null;
      isDefault: boolean;
    }>;
  }>;
  pagination: {
    total: number;
    limit: number;
    offset: number;
    hasMore: boolean;
  };
};

/** Query of GET /v1/lore/documents/export — Bulk export: documents in full form, newest first */
export type GetV1LoreDocumentsExportQuery = {
  /** default 20, max 50 */
  limit?: number;
  /** default 0 */
  offset?: number;
};

/** 200 response of GET /v1/lore/documents/export — Bulk export: documents in full form, newest first */
export type GetV1LoreDocumentsExportResponse = {
  success: true;
  documents: Array<{
    id: string;
    name: string;
    content: string;
    status: "PENDING" | "PROCESSING" | "COMPLETED" | "FAILED";
    chunkCount: number;
    chunks: Array<{
      id: string;
      content: string;
      chunkIndex: number;
      tags: string[];
    }>;
    tags: Array<{
      id: string;
      name: string;
    }>;
    location: {
      id: string;
      name: string;
    } | null;
    createdAt: string;
    updatedAt: string;
    processedAt: string | null;
  }>;
  pagination: {
    total: number;
    limit: number;
    offset: number;
    hasMore: boolean;
  };
};

/** 200 response of GET /v1/lore/documents/{documentId} — One Lore Document in full form, with its chunks */
export type GetV1LoreDocumentsByDocumentIdResponse = {
  success: true;
  document: {
    id: string;
    name: string;
    content: string;
    status: "PENDING" | "PROCESSING" | "COMPLETED" | "FAILED";
    chunkCount: number;
    chunks: Array<{
      id: string;
      content: string;
      chunkIndex: number;
      tags: string[];
    }>;
    tags: Array<{
      id: string;
      name: string;
    }>;
    location: {
      id: string;
      name: string;
    } | null;
    createdAt: string;
    updatedAt: string;
    processedAt: string | null;
  };
};

/** 200 response of GET /v1/lore/locations — Locations ordered by name */
export type GetV1LoreLocationsResponse = {
  success: true;
  locations: Array<{
    id: string;
    name: string;
    description: string | null;
    documentId: string | null;
    document: {
      id: string;
      name: string;
    } | null;
    entityMindCount: number;
    createdAt: string;
    updatedAt: string;
  }>;
  totalCount: number;
};

/** 200 response of GET /v1/lore/minds — Entity Minds with at least one knowledge tag */
export type GetV1LoreMindsResponse = {
  minds: Array<{
    id: string;
    entityName: string;
    personality: string;
    backstory: string | null;
    backstorySummary: string | null;
    role: string | null;
    speakingStyle: string | null;
    hints: string[];
    restrictions: string[];
    locationId: string | null;
    location: {
      id: string;
      name: string;
    } | null;
    knowledgeTags: string[];
    knowledgeDescription: string;
    computedFilter: {
      tags: string[];
      documentCount: number;
      chunkCount: number;
    };
    responseConfig: {
      verbosity: "terse" | "balanced" | "verbose";
      maxTokens: number;
      temperature: number;
      /** sentences a reply may have (terse 2, balanced 3, verbose 5 unless set) */
      maxSentences: number;
    };
    buildCreditsUsed: number;
    interactionCount: number;
    relationshipCount: number;
    createdAt: string;
    updatedAt: string;
  }>;
};

/** 200 response of GET /v1/lore/project-settings — Project settings */
export type GetV1LoreProjectSettingsResponse = {
  success: true;
  settings: {
    projectName: string | null;
    longTermMemoryEnabled: boolean;
    maxSessionLength: number;
    maxSessionTokens: number;
    enhancedMemoryRetrieval: boolean;
  };
};

/** 200 response of GET /v1/lore/relationship-types — Custom relationship types */
export type GetV1LoreRelationshipTypesResponse = {
  success: true;
  customTypes: Array<{
    id: string;
    name: string;
    description: string | null;
    color: string;
    isSymmetric: boolean;
    inverseTypeId: string | null;
    conflictsWithBuiltIn: string[];
    conflictsWithCustom: string[];
    usageCount: number;
    createdAt: string;
    updatedAt: string;
  }>;
};

/** Query of GET /v1/lore/relationships — NPC-to-NPC relationships, filtered by mind or by pair (both directions) */
export type GetV1LoreRelationshipsQuery = {
  entityMindId?: string;
  fromEntityId?: string;
  toEntityId?: string;
  /** default 100, max 500 */
  limit?: number;
  /** default 0 */
  offset?: number;
};

/** 200 response of GET /v1/lore/relationships — NPC-to-NPC relationships, filtered by mind or by pair (both directions) */
export type GetV1LoreRelationshipsResponse = {
  success: true;
  relationships: Array<{
    id: string;
    type: string | null;
    customTypeId: string | null;
    customType: {
      id: string;
      name: string;
      color: string;
    } | null;
    description: string | null;
    fromEntity: {
      id: string;
      entityName: string;
      location: {
        id: string;
        name: string;
      } | null;
    };
    toEntity: {
      id: string;
      entityName: string;
      location: {
        id: string;
        name: string;
      } | null;
    };
    createdAt: string;
    updatedAt: string;
  }>;
  totalCount: number;
};

/** 200 response of GET /v1/lore/tags — Tags: all (with isDefault), default and custom */
export type GetV1LoreTagsResponse = {
  success: true;
  tags: Array<{
    id: string;
    name: string;
    color: string | null;
    documentCount: number;
    isDefault: boolean;
  }>;
  defaultTags: Array<{
    id: string;
    name: string;
    color: string | null;
    documentCount: number;
  }>;
  customTags: Array<{
    id: string;
    name: string;
    color: string | null;
    documentCount: number;
  }>;
  totalCount: number;
};

/** Body of POST /v1/npc/interact — An NPC's in-character reply to a player's line */
export type PostV1NpcInteractBody = {
  /** the player's line (not only whitespace) */
  text: string;
  entityMindId: string;
  playerId: string;
  /** every value together at most 2000 characters */
  context?: {
    location?: string | null;
    locationDetails?: string | null;
    timeOfDay?: string | null;
    weather?: string | null;
    atmosphere?: string | null;
    situation?: string | null;
    npcMood?: string | null;
    npcActivity?: string | null;
    playerAppearance?: string | null;
    playerReputation?: string | null;
    custom?: string | null;
    playerVisibleItems?: string[] | null;
    nearbyCharacters?: string[] | null;
    nearbyObjects?: string[] | null;
    recentEvents?: string[] | null;
  };
  memory?: {
    retrieve?: boolean;
  };
  activeKnowledgeTags?: string[];
  conversationHistory?: Array<{
    role: "user" | "assistant";
    content: string;
  }>;
  /** state for this turn only, laid over the player's stored state (never stored): key → true/false, a number or a string */
  state?: Record<string, unknown>;
  /** a mind with behaviour: only these of its actions may be taken this turn (unknown names are ignored with a warning) */
  availableActions?: string[];
  /** what became of earlier actions (the next reply knows) */
  actionResults?: Array<{
    /** an action's id from metadata.behaviour.actions */
    id: string;
    status: "completed" | "failed" | "aborted";
    detail?: string;
  }>;
};

/** 200 response of POST /v1/npc/interact — An NPC's in-character reply to a player's line */
export type PostV1NpcInteractResponse = {
  success: true;
  response: string;
  character: string;
  metadata: {
    memoryCheckpoint?: boolean;
    warnings?: string[];
    creditsUsed?: number;
    /** what the mind did with its words (minds with behaviour only) */
    behaviour?: {
      emotion: {
        name: string;
        intensity: number;
      };
      actions: Array<{
        /** unique in the conversation: report its result with actionResults */
        id: string;
        name: string;
        params: Record<string, unknown>;
      }>;
      trust?: {
        value: number;
        delta: number;
        label: string | null;
      };
    };
  };
};

/** Body of POST /v1/npc/{mindId}/react — A mind's unprompted line */
export type PostV1NpcByMindIdReactBody = {
  /** what just happened that the mind reacts to, e.g. 'The player walks up to the gate' */
  reason: string;
  /** the player it speaks to (its conversation keeps the line); without it the line is said to nobody in particular */
  playerId?: string;
  /** true: SSE as /v1/npc/interact streams (or send Accept: text/event-stream) */
  stream?: boolean;
};

/** 200 response of GET /v1/npc/{mindId}/trust/{playerId} — A player's trust in an Entity Mind */
export type GetV1NpcByMindIdTrustByPlayerIdResponse = {
  entityMindId: string;
  playerId: string;
  value: number;
  label: string | null;
  min: number;
  max: number;
  /** false: no value stored yet for this player (value is the mind's initial trust) */
  stored: boolean;
};

/** Body of PUT /v1/npc/{mindId}/trust/{playerId} — Set a player's trust in an Entity Mind (within the mind's range) */
export type PutV1NpcByMindIdTrustByPlayerIdBody = {
  /** within the mind's trust range */
  value: number;
};

/** 200 response of PUT /v1/npc/{mindId}/trust/{playerId} — Set a player's trust in an Entity Mind (within the mind's range) */
export type PutV1NpcByMindIdTrustByPlayerIdResponse = {
  entityMindId: string;
  playerId: string;
  value: number;
  label: string | null;
  min: number;
  max: number;
  /** false: no value stored yet for this player (value is the mind's initial trust) */
  stored: boolean;
};

/** Body of POST /v1/scanner/commit — Turn approved extractions into Lore Documents (indexed in the background) */
export type PostV1ScannerCommitBody = {
  jobId: string;
  extractionIds: string[];
  accept?: {
    groups?: string[];
    files?: string[];
    folders?: string[];
    kinds?: string[];
  };
  reject?: {
    groups?: string[];
    files?: string[];
    folders?: string[];
    kinds?: string[];
  };
};

/** 202 response of POST /v1/scanner/commit — Turn approved extractions into Lore Documents (indexed in the background) */
export type PostV1ScannerCommitResponse = {
  committed: number;
  documentIds: string[];
};

/** Body of POST /v1/scanner/estimate — Estimate the credits of a scan */
export type PostV1ScannerEstimateBody = {
  files: Array<{
    filename: string;
    sizeBytes: number;
  }>;
};

/** 200 response of POST /v1/scanner/estimate — Estimate the credits of a scan */
export type PostV1ScannerEstimateResponse = {
  estimatedMicrocredits: number;
  estimatedCredits: number;
  /** amount reserved at confirm; refunded down to actual cost */
  reservedMicrocredits: number;
  reservedCredits: number;
  /** team balance */
  availableCredits: number;
  perFile: Array<{
    filename: string;
    estimatedMicrocredits: number;
  }>;
  estimateType: "rolling_average" | "minimum_balance";
  message: string;
};

/** 200 response of GET /v1/scanner/jobs — The project's 50 most recent scan jobs */
export type GetV1ScannerJobsResponse = {
  jobs: Array<{
    jobId: string;
    status: "PENDING_UPLOAD" | "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
    totalFiles: number;
    completedFiles: number;
    failedFiles: number;
    createdAt: string;
    startedAt: string | null;
    completedAt: string | null;
    committedAt: string | null;
  }>;
};

/** Query of GET /v1/scanner/jobs/{jobId} — One scan job, detail form (poll it for progress) */
export type GetV1ScannerJobsByJobIdQuery = {
  /** true: add reviewGroups (per-group counts and ids) */
  groups?: string;
  /** comma-separated kind:<kind>, group:<group>, file:<path>, folder:<path> */
  hide?: string;
};

/** 200 response of GET /v1/scanner/jobs/{jobId} — One scan job, detail form (poll it for progress) */
export type GetV1ScannerJobsByJobIdResponse = {
  jobId: string;
  status: "PENDING_UPLOAD" | "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
  totalFiles: number;
  completedFiles: number;
  failedFiles: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  committedAt: string | null;
  /** reserved amount after confirm (the estimate before) */
  estimatedCredits: number;
  actualCredits: number;
  /** positive means refunded after reconciliation */
  creditAdjustment: number;
  adjustmentMessage: string;
  errorMessage: string | null;
  extractions: Array<{
    id: string;
    title: string;
    tags: string[];
    location: string | null;
    confidence: number;
    /** first 200 characters */
    contentPreview: string;
    sourceFiles: string[];
    /** character, location, item, faction, event, dialogue or other */
    kind: string;
    /** the entity or scene the extraction belongs to; equal groups are reviewed together */
    group: string;
    /** why each tag (and `location`) matched */
    reasons: Record<string, unknown>;
    /** who speaks in it (dialogue), most lines first */
    speakers: string[];
    /** other languages' versions */
    variants: Array<{
      language: string;
      sourceFile: string;
    }>;
  }>;
  skippedContent: Array<{
    section: string;
    reason: string;
    sourceFile: string;
  }>;
  reviewGroups?: Array<{
    group: string;
    kind: string;
    title: string;
    count: number;
    hiddenCount: number;
    hidden: boolean;
    confidence: number;
    sourceFiles: string[];
    extractionIds?: string[];
  }>;
  /** per character: the project tags and locations of the scenes it speaks in (suggested knowledge tags) */
  knowledgeSuggestions?: Array<{
    speaker: string;
    scenes: number;
    tags: Array<{
      tag: string;
      scenes: number;
    }>;
    locations: Array<{
      location: string;
      scenes: number;
    }>;
  }>;
};

/** 200 response of DELETE /v1/scanner/jobs/{jobId} — Cancel a job that has not been confirmed */
export type DeleteV1ScannerJobsByJobIdResponse = {
  jobId: string;
  status: "FAILED";
  message: string;
};

/** Body of POST /v1/scanner/rescan — Compare file hashes with the latest completed scan */
export type PostV1ScannerRescanBody = {
  files: Array<{
    filename: string;
    /** SHA-256 of the file's bytes, hex */
    contentHash: string;
  }>;
};

/** 200 response of POST /v1/scanner/rescan — Compare file hashes with the latest completed scan */
export type PostV1ScannerRescanResponse = {
  changed: string[];
  added: string[];
  deleted: string[];
  unchanged: string[];
};

/** Body of POST /v1/scanner/submit-archive — Describe the archive; get a signed upload URL */
export type PostV1ScannerSubmitArchiveBody = {
  files: Array<{
    filename: string;
    /** path inside the archive: relative, forward slashes, no '..' */
    relativePath: string;
    sizeBytes: number;
    /** SHA-256 of the file's bytes, hex */
    contentHash: string;
  }>;
  /** archive size, max 200 MB */
  totalSizeBytes: number;
  userContext?: string | null;
  idempotencyKey?: string | null;
};

/** 202 response of POST /v1/scanner/submit-archive — Describe the archive; get a signed upload URL */
export type PostV1ScannerSubmitArchiveResponse = {
  jobId: string;
  status: "PENDING_UPLOAD" | "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
  /** PUT the ZIP here with Content-Type: application/zip (no API key) */
  uploadUrl: string;
  /** seconds the upload URL stays valid */
  expiresIn: number;
  totalFiles: number;
  estimatedCredits: number;
  deduplicated?: true;
};

/** Body of POST /v1/scanner/submit-archive/confirm — Confirm the upload: reserve credits and queue the scan */
export type PostV1ScannerSubmitArchiveConfirmBody = {
  jobId: string;
};

/** 200 response of POST /v1/scanner/submit-archive/confirm — Confirm the upload: reserve credits and queue the scan */
export type PostV1ScannerSubmitArchiveConfirmResponse = {
  jobId: string;
  status: "QUEUED";
  totalFiles: number;
  /** reserved amount */
  estimatedCredits: number;
};

/** Query of PUT /v1/scanner/uploads/{jobId} — Upload the scan archive (the signed uploadUrl) */
export type PutV1ScannerUploadsByJobIdQuery = {
  expires?: string;
  signature?: string;
};

/** 200 response of PUT /v1/scanner/uploads/{jobId} — Upload the scan archive (the signed uploadUrl) */
export type PutV1ScannerUploadsByJobIdResponse = {
  jobId: string;
  status: "PENDING_UPLOAD";
  sizeBytes: number;
  message: string;
};

/** Body of POST /v1/scenes — Start a scene */
export type PostV1ScenesBody = {
  /** mind ids, or {mindId, talkativeness} */
  minds: Array<string | {
    mindId: string;
    /** 0: speaks only when addressed or asked … 1: speaks up often (default 0.5) */
    talkativeness?: number;
  }>;
  location?: string;
  /** the player present: each mind's memory of the scene is kept for this player */
  playerId?: string;
  /** every value together at most 2000 characters */
  context?: {
    location?: string | null;
    locationDetails?: string | null;
    timeOfDay?: string | null;
    weather?: string | null;
    atmosphere?: string | null;
    situation?: string | null;
    npcMood?: string | null;
    npcActivity?: string | null;
    playerAppearance?: string | null;
    playerReputation?: string | null;
    custom?: string | null;
    playerVisibleItems?: string[] | null;
    nearbyCharacters?: string[] | null;
    nearbyObjects?: string[] | null;
    recentEvents?: string[] | null;
  };
};

/** 200 response of POST /v1/scenes — Start a scene */
export type PostV1ScenesResponse = {
  sceneId: string;
};

/** 200 response of GET /v1/scenes/{sceneId} — A scene */
export type GetV1ScenesBySceneIdResponse = {
  sceneId: string;
  playerId: string | null;
  context: Record<string, unknown>;
  minds: Array<{
    mindId: string;
    character: string;
    talkativeness: number;
    joinedAt: string;
  }>;
  lines: Array<{
    seq: number;
    mindId: string | null;
    character: string;
    text: string;
    at: string;
  }>;
  turns: number;
  createdAt: string;
  lastActiveAt: string;
  expiresAt: string;
};

/** Body of PATCH /v1/scenes/{sceneId} — Minds join or leave a scene */
export type PatchV1ScenesBySceneIdBody = {
  /** minds walking in (or a present mind's new talkativeness) */
  join?: Array<string | {
    mindId: string;
    /** 0: speaks only when addressed or asked … 1: speaks up often (default 0.5) */
    talkativeness?: number;
  }>;
  /** minds walking out: their memory of the scene is checkpointed */
  leave?: string[];
};

/** 200 response of PATCH /v1/scenes/{sceneId} — Minds join or leave a scene */
export type PatchV1ScenesBySceneIdResponse = {
  sceneId: string;
  playerId: string | null;
  context: Record<string, unknown>;
  minds: Array<{
    mindId: string;
    character: string;
    talkativeness: number;
    joinedAt: string;
  }>;
  lines: Array<{
    seq: number;
    mindId: string | null;
    character: string;
    text: string;
    at: string;
  }>;
  turns: number;
  createdAt: string;
  lastActiveAt: string;
  expiresAt: string;
};

/** 200 response of DELETE /v1/scenes/{sceneId} — End a scene */
export type DeleteV1ScenesBySceneIdResponse = {
  sceneId: string;
  ended: true;
  /** minds whose memory of the scene was queued for the summary */
  memoryCheckpoints: number;
};

/** Body of POST /v1/scenes/{sceneId}/turn — A turn of a scene */
export type PostV1ScenesBySceneIdTurnBody = {
  /** the player's line; absent: the minds talk among themselves */
  text?: string;
  /** the most lines this turn (default 1) */
  maxLines?: number;
  /** a present mind that says the turn's first line */
  speaker?: string;
};

/** 200 response of POST /v1/scenes/{sceneId}/turn — A turn of a scene */
export type PostV1ScenesBySceneIdTurnResponse = {
  success: true;
  sceneId: string;
  lines: Array<{
    mindId: string;
    character: string;
    response: string;
    /** creditsUsed, warnings, behaviour (as interact) and `why`: {reason, weight?, chance?, relevance?} */
    metadata: Record<string, unknown>;
  }>;
  /** cancelled: true when a newer turn cut this one short; stopped: the error that ended it after its first line */
  metadata: Record<string, unknown>;
};

/** 200 response of GET /v1/state/players/{playerId} — A player's state */
export type GetV1StatePlayersByPlayerIdResponse = {
  playerId: string;
  /** key → value (true/false, a number or a string) */
  state: Record<string, unknown>;
};

/** Body of PUT /v1/state/players/{playerId} — Change a player's state */
export type PutV1StatePlayersByPlayerIdBody = {
  set?: Record<string, unknown>;
  unset?: string[];
};

/** 200 response of PUT /v1/state/players/{playerId} — Change a player's state */
export type PutV1StatePlayersByPlayerIdResponse = {
  playerId: string;
  /** key → value (true/false, a number or a string) */
  state: Record<string, unknown>;
};

/** 200 response of GET /v1/state/world — The world's state */
export type GetV1StateWorldResponse = {
  /** key → value (true/false, a number or a string) */
  state: Record<string, unknown>;
};

/** Body of PUT /v1/state/world — Change the world's state */
export type PutV1StateWorldBody = {
  set?: Record<string, unknown>;
  unset?: string[];
};

/** 200 response of PUT /v1/state/world — Change the world's state */
export type PutV1StateWorldResponse = {
  /** key → value (true/false, a number or a string) */
  state: Record<string, unknown>;
};
