import { Database } from "bun:sqlite";
import { migrate } from "../../src/db/migrate.ts";
const db = new Database(":memory:"); migrate(db);
console.log(db.query(`EXPLAIN QUERY PLAN SELECT id, unique_words, sketch FROM scan_extractions
       WHERE job_id = ? AND title_key = ? AND unique_words BETWEEN ? AND ? ORDER BY ordinal DESC LIMIT ?`).all("a", "b", 1, 2, 3));
