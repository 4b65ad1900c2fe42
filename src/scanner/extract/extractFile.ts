import { SectionCollector } from "./SectionCollector.ts";
import type { FileExtraction } from "./types.ts";
import { SKIP, extensionOf } from "./text.ts";
import { extractMarkdown } from "./formats/markdown.ts";
import { extractPlainText } from "./formats/plainText.ts";
import { extractRecords, looksLikeRecords } from "./formats/records.ts";
import { extractHtml } from "./formats/html.ts";
import { extractTwineArchive, isTwineHtml } from "./formats/twineArchive.ts";
import { extractJson, extractToml, extractYaml } from "./formats/data.ts";
import { extractDelimited } from "./formats/csv.ts";
import { extractResx, extractXliff, extractXml } from "./formats/xml.ts";
import { extractInk } from "./formats/ink.ts";
import { extractYarn } from "./formats/yarn.ts";
import { extractTwee } from "./formats/twee.ts";
import { extractRenpy } from "./formats/renpy.ts";
import { extractPo } from "./formats/po.ts";
import { extractAppleStrings } from "./formats/appleStrings.ts";
import { extractUnity } from "./formats/unity.ts";
import { extractUnityStringTable, isUnitySharedTableData, isUnityStringTable, stringTableCollection } from "./formats/unityStringTable.ts";
import { extractGodotResource } from "./formats/godot.ts";
import { extractDialogic } from "./formats/dialogic.ts";
import { extractSourceCode } from "./formats/sourceCode.ts";
import { extractRpgMaker, isRpgMakerData } from "./formats/rpgMaker.ts";
import { extractStarsectorChatter, extractStarsectorDescriptions, isStarsectorChatter, isStarsectorDescriptions } from "./formats/starsector.ts";
import { extractChoiceScript, looksLikeChoiceScript } from "./formats/choiceScript.ts";
import { extractParadoxLocalisation, paradoxLanguage } from "./formats/paradox.ts";
import { looksLikeConfig, looksLikeDataTable, looksLikeLog } from "./contentKind.ts";

type Extractor = (content: string, out: SectionCollector, opts: ExtractOptions) => void;

/** The 29 scannable extensions (DESIGN.md "Scanner"), each with its extractor. */
export const EXTRACTORS: Readonly<Record<string, Extractor>> = {
  ".txt": extractTextOrRecords,
  ".md": extractMarkdown,
  ".markdown": extractMarkdown,
  ".html": (c, out) => (isTwineHtml(c) ? extractTwineArchive(c, out) : extractHtml(c, out)),
  ".ink": extractInk,
  ".yarn": extractYarn,
  ".tw": extractTwee,
  ".twee": extractTwee,
  ".rpy": extractRenpy,
  ".json": extractJsonOrTimeline,
  ".csv": (c, out) => (isStarsectorDescriptions(c) ? extractStarsectorDescriptions(c, out) : looksLikeDataTable(c) ? out.skipFile(SKIP.dataTable) : extractDelimited(c, ",", out)),
  ".tsv": (c, out) => (looksLikeDataTable(c) ? out.skipFile(SKIP.dataTable) : extractDelimited(c, "\t", out)),
  ".xml": extractXml,
  ".yaml": extractYamlOrUnity,
  ".yml": extractYamlOrUnity,
  ".toml": extractToml,
  ".asset": extractUnityAsset,
  ".playable": extractUnity,
  ".prefab": extractUnity,
  ".unity": extractUnity,
  ".tres": extractGodotResource,
  ".tscn": extractGodotResource,
  ".dtl": extractDialogic,
  ".gd": (c, out) => extractSourceCode(c, "gdscript", out),
  ".cs": (c, out) => extractSourceCode(c, "csharp", out),
  ".po": extractPo,
  ".strings": extractAppleStrings,
  ".resx": extractResx,
  ".xliff": extractXliff,
};

export const ALLOWED_EXTENSIONS: readonly string[] = Object.freeze(Object.keys(EXTRACTORS));

/** RPG Maker MV/MZ keeps its events' message windows in map JSON, Starsector its combat chatter in character JSON; Dialogic 1 saves timelines as .json ({"events": [...], "metadata": {"dialogic-version": …}}). */
function extractJsonOrTimeline(content: string, out: SectionCollector): void {
  if (isRpgMakerData(out.sourceFile, content)) extractRpgMaker(content, out);
  else if (isStarsectorChatter(out.sourceFile, content)) extractStarsectorChatter(content, out);
  else if (/"dialogic-version"\s*:/.test(content.slice(-2000)) && /^\s*\{\s*"events"\s*:/.test(content.slice(0, 200))) extractDialogic(content, out);
  else extractJson(content, out);
}

/**
 * A ChoiceScript scene is read by its commands; a .txt of `key:value` records (roguelike data files) is split per record; a play log, a settings
 * file or a table of game data is skipped whole; anything else is prose.
 */
function extractTextOrRecords(content: string, out: SectionCollector, opts: ExtractOptions): void {
  if (looksLikeChoiceScript(content)) extractChoiceScript(content, out);
  else if (looksLikeLog(content)) out.skipFile(SKIP.log);
  else if (looksLikeRecords(content)) extractRecords(content, out, opts.includeMechanics === true);
  else if (looksLikeConfig(content)) out.skipFile(SKIP.config);
  else if (looksLikeDataTable(content)) out.skipFile(SKIP.dataTable);
  else extractPlainText(content, out);
}

/** Unity Localization string tables are read line by line and joined with their shared keys; other assets as Unity YAML. */
function extractUnityAsset(content: string, out: SectionCollector, opts: ExtractOptions): void {
  if (isUnityStringTable(content)) {
    const collection = stringTableCollection(content);
    extractUnityStringTable(content, out, collection ? opts.stringTableKeys?.(collection) : null);
  } else if (isUnitySharedTableData(content)) out.skipFile(STRING_TABLE_KEYS);
  else extractUnity(content, out);
}

/** A Paradox localisation (`l_english:` then ` key:0 "text"`) is not YAML; a .yaml exported from Unity keeps its `%TAG !u!` header and needs the Unity reader. */
function extractYamlOrUnity(content: string, out: SectionCollector): void {
  if (paradoxLanguage(content) !== null) extractParadoxLocalisation(content, out);
  else if (/^(?:\uFEFF)?%YAML[^\n]*\n%TAG !u! /.test(content.slice(0, 200))) extractUnity(content, out);
  else extractYaml(content, out);
}

/** Replacement characters or C0 controls (other than tab/newline/CR/FF) mean the bytes were not text. */
function looksBinary(content: string): boolean {
  const sample = content.length > 65536 ? content.slice(0, 65536) : content;
  if (sample.includes("\u0000")) return true;
  let bad = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0xfffd || (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12)) bad++;
  }
  return bad > Math.max(8, sample.length / 100);
}

export interface ExtractOptions {
  /** The file's project holds .ink sources: compiled Ink JSON there is a copy (ScanPlan.hasInkSourceFor). */
  hasInkSource?: boolean;
  /** The file's project holds Twee sources: a published Twine HTML there is a copy (ScanPlan.hasTweeSourceFor). */
  hasTweeSource?: boolean;
  /** Scan record files of game mechanics too (ScanPlan.includeMechanics). */
  includeMechanics?: boolean;
  /** A Unity string table collection's shared keys (id → key), when the worker has read them (StringTableJoin). */
  stringTableKeys?: (collection: string) => Map<string, string> | undefined;
  /**
   * Told the characters parsed as a big file is worked through a part at a time (YAML slices, JSON
   * containers): the scan's extraction thread collects garbage mid-file (its parsers' garbage).
   */
  onWork?: (units: number) => void;
}

export const STRING_TABLE_KEYS = "String table keys: joined with the texts of the collection's locale tables";

export const COMPILED_INK = "Skipped: compiled output (compiled Ink JSON; its .ink source is scanned)";
export const PUBLISHED_TWINE = "Skipped: compiled output (published Twine story; its Twee source is scanned)";
export const XML_DOCS = "Skipped: compiled output (generated API documentation)";

/** Content that is a build product of something else in the archive (checked on the first bytes only). */
function compiledReason(relativePath: string, content: string, opts: ExtractOptions): string | null {
  const ext = extensionOf(relativePath);
  const head = content.slice(0, 4096);
  if (ext === ".json" && opts.hasInkSource && /^\s*\{\s*"inkVersion"\s*:/.test(head)) return COMPILED_INK;
  if (ext === ".html" && opts.hasTweeSource && head.includes("<tw-storydata")) return PUBLISHED_TWINE;
  if (ext === ".html" && opts.hasTweeSource && content.includes("<tw-storydata")) return PUBLISHED_TWINE;
  if (ext === ".xml" && /<doc>\s*<assembly>/.test(head)) return XML_DOCS;
  return null;
}

/**
 * Split one file into candidate sections by its format. Never throws: a file that cannot
 * be read or parsed yields a Skipped entry with the reason instead.
 */
export function extractFile(relativePath: string, rawContent: string, opts: ExtractOptions = {}): FileExtraction {
  const out = new SectionCollector(relativePath, opts.onWork);
  const content = rawContent.charCodeAt(0) === 0xfeff ? rawContent.slice(1) : rawContent;
  const extractor = EXTRACTORS[extensionOf(relativePath)];
  if (!extractor) {
    out.skipFile(SKIP.unsupported);
    return out.finish();
  }
  if (content.trim() === "") {
    out.skipFile(SKIP.empty);
    return out.finish();
  }
  if (looksBinary(content)) {
    out.skipFile(SKIP.binary);
    return out.finish();
  }
  const compiled = compiledReason(relativePath, content, opts);
  if (compiled) {
    out.skipFile(compiled);
    return out.finish();
  }
  try {
    extractor(content, out, opts);
  } catch (e) {
    // Extractors report expected parse failures themselves; this is the safety net for the rest.
    out.skipFile(SKIP.parse(e instanceof Error ? e.message : String(e)));
  }
  return out.finish();
}
