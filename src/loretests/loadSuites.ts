import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { ApiError } from "../core/errors.ts";
import { isPlainObject } from "../lore/validate/fields.ts";
import { checkShape } from "../packs/checkShape.ts";
import { parseYamlText } from "../packs/parsePackText.ts";
import { CaseSchema, INVALID_TESTS, LoreTestFileSchema, LORE_TEST_LIMITS, type LoreTestCase } from "./testSchema.ts";
import { Type } from "@sinclair/typebox";

/** A case and where it was written (`file#index`), so a result points back at its source. */
export interface SourcedCase {
  source: string;
  case: LoreTestCase;
}

/** One suite file's text, as the admin API receives it or the CLI reads it. */
export interface SuiteText {
  file: string;
  text: string;
}

const TEST_FILE = /\.test\.(ya?ml|json)$/i;
const PACK_TESTS = Type.Array(CaseSchema, { maxItems: LORE_TEST_LIMITS.cases });

/**
 * Parses and checks suite files: a `*.test.yaml` file (`tests:` and an optional `project:`) or a lore pack
 * with a `tests:` section (only the section is read here; the pack's import checks the rest). Every problem
 * of every file is reported at once, as `file: path: reason`, and nothing runs when there is one.
 */
export function parseSuites(files: SuiteText[]): SourcedCase[] {
  const problems: string[] = [];
  const cases: SourcedCase[] = [];
  for (const f of files) {
    const add = (path: string, reason: string) => problems.push(`${f.file}: ${path}: ${reason}`);
    const value = parseText(f, problems);
    if (value === undefined) continue;
    if (!isPlainObject(value)) {
      problems.push(`${f.file}: must be a mapping with tests: (a list of cases)`);
      continue;
    }
    const before = problems.length;
    if (TEST_FILE.test(f.file) || !isPackLike(value)) checkShape(LoreTestFileSchema, value, "", add);
    else if (value.tests === undefined || value.tests === null) problems.push(`${f.file}: tests: required (this pack has no tests section)`);
    else checkShape(PACK_TESTS, value.tests, "tests", add);
    const list = Array.isArray(value.tests) ? (value.tests as LoreTestCase[]) : [];
    list.forEach((c, i) => {
      if (isPlainObject(c) && c.seed != null && c.greedy === true) add(`tests[${i}]`, "seed and greedy: true exclude each other (greedy sampling uses no seed)");
    });
    if (problems.length === before) list.forEach((c, i) => cases.push({ source: `${f.file}#${i}`, case: c }));
  }
  if (problems.length) throw new ApiError(400, INVALID_TESTS, { details: problems });
  if (cases.length > LORE_TEST_LIMITS.cases) throw new ApiError(400, INVALID_TESTS, { details: [`at most ${LORE_TEST_LIMITS.cases} cases in one run (found ${cases.length})`] });
  return cases;
}

/** Files named on the command line: test files as they are, folders searched for `*.test.yaml` / `.yml` / `.json`. */
export async function readSuitePaths(paths: string[]): Promise<SuiteText[]> {
  const out: SuiteText[] = [];
  const missing: string[] = [];
  for (const p of paths) {
    const info = await stat(p).catch(() => null);
    if (!info) missing.push(`${p}: no such file or folder`);
    else if (info.isDirectory()) {
      const entries = await readdir(p, { recursive: true, withFileTypes: true });
      const files = entries
        .filter((e) => e.isFile() && TEST_FILE.test(e.name))
        .map((e) => relative(p, join(e.parentPath, e.name)).split(sep).join("/"))
        .filter((rel) => !rel.split("/").some((part) => part.startsWith(".") || part === "node_modules"))
        .sort();
      if (!files.length) missing.push(`${p}: no *.test.yaml files in this folder`);
      for (const rel of files) out.push({ file: join(p, rel), text: await readFile(join(p, rel), "utf8") });
    } else out.push({ file: p, text: await readFile(p, "utf8") });
  }
  if (missing.length) throw new ApiError(400, INVALID_TESTS, { details: missing });
  return out;
}

function parseText(f: SuiteText, problems: string[]): unknown {
  const body = f.text.replace(/^\uFEFF/, "");
  if (/\.json$/i.test(f.file)) {
    try {
      return JSON.parse(body);
    } catch (e) {
      problems.push(`${f.file}: ${(e as Error).message.replace(/^JSON Parse error: /, "")}`);
      return undefined;
    }
  }
  const { value, problems: syntax } = parseYamlText(body, f.file);
  problems.push(...syntax);
  return syntax.length ? undefined : value;
}

/** A lore pack (it has minds, documents…) rather than a test file: only its tests section is ours to check. */
function isPackLike(v: Record<string, unknown>): boolean {
  return isPlainObject(v.project) || Object.keys(v).some((k) => k !== "tests" && k !== "project");
}
