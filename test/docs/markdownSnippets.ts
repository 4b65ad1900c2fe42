import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** A fenced block of a Markdown page marked to run: ```sh runnable, ```ts runnable, ```yaml runnable, ```toml runnable. */
export interface Snippet {
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  lang: string;
  code: string;
}

export const RUNNABLE_LANGS = ["sh", "ts", "yaml", "toml"] as const;

/** The Markdown pages that make up the manual: README.md, CONTRIBUTING.md and everything under docs/. */
export function manualPages(root: string): string[] {
  const pages = ["README.md", "CONTRIBUTING.md"].map((p) => join(root, p));
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) pages.push(path);
    }
  };
  walk(join(root, "docs"));
  return pages;
}

/** Fences open at the start of a line (``` + info string) and close with a bare ``` line. */
export function extractSnippets(root: string, path: string): Snippet[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S+)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l === "```");
    if (end < 0) break;
    if (open[2].split(/\s+/).includes("runnable")) {
      out.push({ file: relative(root, path), line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join("\n") + "\n" });
    }
    i = end;
  }
  return out;
}
