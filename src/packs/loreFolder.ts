import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { isPlainObject } from "../lore/validate/fields.ts";
import { parseYamlText } from "./parsePackText.ts";

export const LORE_FILE_EXTENSIONS = [".md", ".markdown", ".txt"] as const;
const FRONT_MATTER_FIELDS = ["title", "tags", "location", "key"];

interface FolderDocument {
  key: unknown;
  name: unknown;
  tags?: unknown;
  location?: unknown;
  content: string;
}

export interface LoreFolder {
  /** a pack of documents, one per file (not yet validated: importPack does that) */
  pack: { project?: { name: string }; documents: FolderDocument[] };
  /** problems of the files themselves (front matter syntax, unknown fields) */
  problems: string[];
  /** rewrites a pack problem about documents[i] into one about the file */
  relabel: (problem: string) => string;
}

/**
 * Reads a folder of lore files (DESIGN.md "Lore documents from files"):
 * every .md/.markdown/.txt below it, with optional YAML front matter
 * (title, tags, location, key). Without a title the file name (without its
 * extension) is the title; without a key the path relative to the folder is
 * the key, so re-importing the folder updates the same documents.
 * `only` reads just those files of the folder (a single file's import).
 */
export async function readLoreFolder(dir: string, only?: string[]): Promise<LoreFolder> {
  const files = (only ?? (await listFiles(dir))).sort();
  const problems: string[] = [];
  if (files.length === 0) problems.push(`${dir}: no ${LORE_FILE_EXTENSIONS.join(", ")} files`);
  const documents: FolderDocument[] = [];
  for (const rel of files) {
    const text = (await readFile(join(dir, rel), "utf8")).replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
    const { frontMatter, body, problems: fmProblems } = splitFrontMatter(text, rel);
    problems.push(...fmProblems);
    for (const k of Object.keys(frontMatter)) {
      if (!FRONT_MATTER_FIELDS.includes(k)) problems.push(`${rel}: ${k}: unknown front matter field (known: ${FRONT_MATTER_FIELDS.join(", ")})`);
    }
    const title = typeof frontMatter.title === "number" ? String(frontMatter.title) : frontMatter.title;
    documents.push({
      key: frontMatter.key ?? rel,
      name: title ?? rel.split("/").pop()!.slice(0, -extname(rel).length),
      // `tags: tavern` is how people write a single tag
      tags: typeof frontMatter.tags === "string" ? [frontMatter.tags] : frontMatter.tags,
      location: frontMatter.location,
      content: body,
    });
  }
  const relabel = (problem: string) =>
    problem.replace(/^documents\[(\d+)\]\.?([^:]*)/, (all, i: string, field: string) => {
      const file = files[Number(i)];
      if (file === undefined) return all;
      return field ? `${file}: ${field.replace(/^name\b/, "title")}` : file;
    });
  return { pack: { documents }, problems, relabel };
}

/** Splits `---\n<yaml>\n---\n<body>`; a file without that opening line is all body. */
export function splitFrontMatter(text: string, fileName: string): { frontMatter: Record<string, unknown>; body: string; problems: string[] } {
  const clean = (body: string) => body.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
  if (!/^---[ \t]*\n/.test(text)) return { frontMatter: {}, body: clean(text), problems: [] };
  const close = /^(?:---|\.\.\.)[ \t]*$/m;
  const rest = text.slice(text.indexOf("\n") + 1);
  const m = close.exec(rest);
  if (!m) return { frontMatter: {}, body: clean(text), problems: [`${fileName}:1: front matter has no closing --- line`] };
  const yaml = rest.slice(0, m.index);
  const body = rest.slice(m.index + m[0].length + 1);
  const { value, problems } = parseYamlText(yaml, fileName, 2);
  if (problems.length) return { frontMatter: {}, body: clean(body), problems };
  if (value === null || value === undefined) return { frontMatter: {}, body: clean(body), problems: [] };
  if (!isPlainObject(value)) return { frontMatter: {}, body: clean(body), problems: [`${fileName}: front matter must be a mapping of ${FRONT_MATTER_FIELDS.join(", ")}`] };
  return { frontMatter: value, body: clean(body), problems: [] };
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && (LORE_FILE_EXTENSIONS as readonly string[]).includes(extname(e.name).toLowerCase()))
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .filter((rel) => !rel.split("/").some((part) => part.startsWith(".")));
}
