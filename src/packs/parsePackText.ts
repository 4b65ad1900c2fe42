import { LineCounter, parseDocument } from "yaml";
import { ApiError } from "../core/errors.ts";
import { jsonErrorOffset } from "./jsonErrorOffset.ts";
import { INVALID_PACK } from "./types.ts";

/**
 * Parses a pack file's text: JSON for `.json` (or text that starts with `{`
 * when the extension says nothing), YAML otherwise. Syntax errors answer
 * 400 Invalid lore pack with `<file>:<line>: <reason>` for each.
 */
export function parsePackText(text: string, fileName: string): unknown {
  const body = text.replace(/^\uFEFF/, "");
  const lower = fileName.toLowerCase();
  const json = lower.endsWith(".json") || (!/\.ya?ml$/.test(lower) && body.trimStart().startsWith("{"));
  if (json) {
    try {
      return JSON.parse(body);
    } catch (e) {
      const at = jsonErrorOffset(body) ?? body.length;
      const line = body.slice(0, at).split("\n").length;
      throw new ApiError(400, INVALID_PACK, { details: [`${fileName}:${line}: ${(e as Error).message.replace(/^JSON Parse error: /, "")}`] });
    }
  }
  const { value, problems } = parseYamlText(body, fileName);
  if (problems.length) throw new ApiError(400, INVALID_PACK, { details: problems });
  return value;
}

/**
 * YAML text to plain data, or every syntax error as `<file>:<line>: <reason>`
 * (line numbers start at `firstLine`, for YAML embedded in a bigger file).
 * Duplicate keys are errors; aliases are capped so a small file cannot expand into a huge one.
 */
export function parseYamlText(text: string, fileName: string, firstLine = 1): { value: unknown; problems: string[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter: lines });
  const at = (pos: number) => `${fileName}:${lines.linePos(pos).line + firstLine - 1}`;
  const problems = doc.errors.map((e) => `${at(e.pos[0])}: ${e.message.split("\n")[0]}`);
  if (problems.length) return { value: undefined, problems };
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), problems: [] };
  } catch (e) {
    return { value: undefined, problems: [`${fileName}: ${(e as Error).message}`] };
  }
}
