import type { Migration } from "./migration.ts";

/** The whole v1 schema. Ids are opaque prefixed strings; timestamps ISO-8601 UTC text. */
export const initial: Migration = {
  version: 1,
  name: "initial",
  sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  monthly_allotment_micro INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX projects_team ON projects(team_id);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('server','editor')),
  name TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  last4 TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX api_keys_project ON api_keys(project_id);

CREATE TABLE project_settings (
  project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  long_term_memory_enabled INTEGER NOT NULL DEFAULT 1,
  max_session_length INTEGER NOT NULL DEFAULT 20,
  max_session_tokens INTEGER NOT NULL DEFAULT 50000,
  enhanced_memory_retrieval INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);

CREATE TABLE rate_limits (
  project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  per_player_per_minute INTEGER NOT NULL DEFAULT 60,
  per_project_per_minute INTEGER NOT NULL DEFAULT 200,
  updated_at TEXT NOT NULL
);

CREATE TABLE tags (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  color TEXT,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, name)
);

CREATE TABLE documents (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key TEXT,
  name TEXT NOT NULL,
  content TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING','PROCESSING','COMPLETED','FAILED')),
  chunk_count INTEGER NOT NULL DEFAULT 0,
  location_id TEXT REFERENCES locations(id) ON DELETE SET NULL,
  error_message TEXT,
  index_version INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  processed_at TEXT,
  UNIQUE (project_id, key)
);
CREATE INDEX documents_project_created ON documents(project_id, created_at DESC, id DESC);
CREATE INDEX documents_status ON documents(status);

CREATE TABLE document_tags (
  document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (document_id, tag_id)
);
CREATE INDEX document_tags_tag ON document_tags(tag_id);

CREATE TABLE chunks (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  chunk_index INTEGER NOT NULL,
  content TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  UNIQUE (document_id, chunk_index)
);

-- Full-text search over documents' name and content (GET /lore/documents?search=).
CREATE VIRTUAL TABLE documents_fts USING fts5(name, content, content='documents', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER documents_fts_ai AFTER INSERT ON documents BEGIN
  INSERT INTO documents_fts(rowid, name, content) VALUES (new.rowid, new.name, new.content);
END;
CREATE TRIGGER documents_fts_ad AFTER DELETE ON documents BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, name, content) VALUES ('delete', old.rowid, old.name, old.content);
END;
CREATE TRIGGER documents_fts_au AFTER UPDATE OF name, content ON documents BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, name, content) VALUES ('delete', old.rowid, old.name, old.content);
  INSERT INTO documents_fts(rowid, name, content) VALUES (new.rowid, new.name, new.content);
END;

-- Deleted documents whose vectors the server's indexer still has to remove from LanceDB
-- (the CLI may delete rows, but only the server process writes LanceDB).
CREATE TABLE index_tombstones (
  document_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TRIGGER documents_tombstone AFTER DELETE ON documents BEGIN
  INSERT OR REPLACE INTO index_tombstones (document_id, project_id, created_at)
  VALUES (old.id, old.project_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TABLE locations (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key TEXT,
  name TEXT NOT NULL,
  description TEXT,
  document_id TEXT REFERENCES documents(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, key)
);
CREATE INDEX locations_project_name ON locations(project_id, name);

CREATE TABLE entity_minds (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key TEXT,
  entity_name TEXT NOT NULL,
  personality TEXT NOT NULL,
  backstory TEXT,
  backstory_summary TEXT,
  role TEXT,
  speaking_style TEXT,
  hints TEXT NOT NULL DEFAULT '[]',
  restrictions TEXT NOT NULL DEFAULT '[]',
  location_id TEXT REFERENCES locations(id) ON DELETE SET NULL,
  knowledge_description TEXT,
  response_config TEXT NOT NULL DEFAULT '{}',
  build_credits_used INTEGER NOT NULL DEFAULT 0,
  interaction_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, key)
);
CREATE INDEX entity_minds_project ON entity_minds(project_id, created_at);

CREATE TABLE mind_knowledge_tags (
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (mind_id, tag_id)
);
CREATE INDEX mind_knowledge_tags_tag ON mind_knowledge_tags(tag_id);

CREATE TABLE relationship_types (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key TEXT,
  name TEXT NOT NULL,
  description TEXT,
  color TEXT NOT NULL,
  is_symmetric INTEGER NOT NULL DEFAULT 0,
  inverse_type_id TEXT REFERENCES relationship_types(id) ON DELETE SET NULL,
  conflicts_with_built_in TEXT NOT NULL DEFAULT '[]',
  conflicts_with_custom TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, key),
  UNIQUE (project_id, name)
);

CREATE TABLE relationships (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key TEXT,
  type TEXT,
  custom_type_id TEXT REFERENCES relationship_types(id) ON DELETE CASCADE,
  description TEXT,
  from_mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  to_mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((type IS NULL) <> (custom_type_id IS NULL)),
  UNIQUE (project_id, key)
);
CREATE INDEX relationships_from ON relationships(project_id, from_mind_id);
CREATE INDEX relationships_to ON relationships(project_id, to_mind_id);

CREATE TABLE credit_reservations (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  project_id TEXT REFERENCES projects(id) ON DELETE SET NULL,
  purpose TEXT NOT NULL,
  allotment_micro INTEGER NOT NULL,
  topup_micro INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open','settled','released')),
  period TEXT NOT NULL,
  created_at TEXT NOT NULL,
  closed_at TEXT
);

-- Every movement of credits is a row; balances are sums over these rows.
CREATE TABLE credit_ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  project_id TEXT,
  bucket TEXT NOT NULL CHECK (bucket IN ('allotment','topup')),
  kind TEXT NOT NULL,
  amount_micro INTEGER NOT NULL,
  period TEXT NOT NULL,
  reservation_id TEXT,
  note TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX credit_ledger_team ON credit_ledger(team_id, bucket, period);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  player_id TEXT NOT NULL,
  messages TEXT NOT NULL DEFAULT '[]',
  turn_count INTEGER NOT NULL DEFAULT 0,
  token_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, mind_id, player_id)
);

CREATE TABLE memories (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES entity_minds(id) ON DELETE CASCADE,
  player_id TEXT NOT NULL,
  text TEXT NOT NULL,
  importance INTEGER NOT NULL CHECK (importance BETWEEN 1 AND 10),
  topics TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX memories_player ON memories(project_id, player_id, mind_id);

CREATE TABLE scan_jobs (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('PENDING_UPLOAD','QUEUED','PROCESSING','COMPLETED','FAILED')),
  idempotency_key TEXT,
  manifest TEXT NOT NULL,
  total_size_bytes INTEGER NOT NULL,
  user_context TEXT,
  total_files INTEGER NOT NULL,
  completed_files INTEGER NOT NULL DEFAULT 0,
  failed_files INTEGER NOT NULL DEFAULT 0,
  estimated_micro INTEGER NOT NULL DEFAULT 0,
  reserved_micro INTEGER NOT NULL DEFAULT 0,
  reservation_id TEXT REFERENCES credit_reservations(id),
  actual_micro INTEGER NOT NULL DEFAULT 0,
  credit_adjustment_micro INTEGER NOT NULL DEFAULT 0,
  adjustment_message TEXT NOT NULL DEFAULT '',
  error_message TEXT,
  skipped TEXT NOT NULL DEFAULT '[]',
  attempts INTEGER NOT NULL DEFAULT 0,
  upload_expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  confirmed_at TEXT,
  started_at TEXT,
  completed_at TEXT,
  committed_at TEXT,
  UNIQUE (project_id, idempotency_key)
);
CREATE INDEX scan_jobs_project ON scan_jobs(project_id, created_at DESC);
CREATE INDEX scan_jobs_status ON scan_jobs(status);

CREATE TABLE scan_extractions (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES scan_jobs(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  title TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  location TEXT,
  confidence REAL NOT NULL,
  content TEXT NOT NULL,
  source_files TEXT NOT NULL DEFAULT '[]',
  document_id TEXT REFERENCES documents(id) ON DELETE SET NULL
);
CREATE INDEX scan_extractions_job ON scan_extractions(job_id, ordinal);
`,
};
