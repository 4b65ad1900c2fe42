import { dataBinFolders, sourcesBeside } from "./buildOutput.ts";
import { baseName, extensionOf } from "./text.ts";

/**
 * What a file is before anything is extracted from it: a whole archive
 * is known from its manifest, so engine/plugin folders, VCS/CI config, changelogs,
 * licences, project docs, tests, compiled outputs and translations are decided by
 * path before a byte is decoded. Each kind can be included again from `userContext`
 * with a line `include: <kind>, <kind>` (or `include: all`).
 */

export type SkipKind = "engine" | "ci" | "changelog" | "licence" | "docs" | "tests" | "compiled" | "meta" | "samples" | "ui" | "backup";

export const SKIP_KIND_LABEL: Record<SkipKind, string> = {
  engine: "engine, plugin, addon or editor folder",
  ci: "version control, CI or tool configuration",
  changelog: "changelog",
  licence: "licence or notice",
  docs: "project docs (readme, install, contributing)",
  tests: "tests",
  compiled: "compiled output (source present)",
  meta: "wiki maintenance (index, templates, audits, prompts, conventions)",
  samples: "tutorials, samples, examples, demos and developer docs (text about the tool, not the world)",
  ui: "user interface layouts (gui/ folders: buttons, menus, dialogs)",
  backup: "backup copies (an editor's dated copies of the project's files: duplicates of what is scanned)",
};

export const SKIP_KINDS = Object.keys(SKIP_KIND_LABEL) as SkipKind[];

/** The skippedContent reason for a kind, naming the opt-in. */
export function skipKindReason(kind: SkipKind): string {
  return `Skipped: ${SKIP_KIND_LABEL[kind]} (scan it with "include: ${kind}" in userContext)`;
}

// Folder names that hold an engine's, a plugin's or an editor's files, not the game's writing.
const ENGINE_DIRS = new Set([
  "addons", "plugins", "packages", "packagecache", "library", "editor", "thirdparty", "third_party", "third-party", "vendor",
  "node_modules", "standard assets", "textmesh pro", "plugin", "externals", "external", "sdk", "dlls",
]);
// A worldbuilding wiki's own upkeep: page templates, writing protocols, audit prompts, indexes.
const META_DIRS = new Set(["templates", "template", "_templates", "protocols", "prompts", "skills"]);
// An author's own process notes too: a development journal or log, a post-mortem, a to-do list.
const META_FILES = /^(?:index|ai[-_ ]index|home|sitemap|toc|table[-_ ]of[-_ ]contents|open[-_ ]questions|to[-_ ]do|dev[-_ ]?log|(?:process|dev|development|design)[-_ ](?:journal|log|diary|notes)|post[-_ ]?mortem|system[-_ ]governance|naming[-_ ]conventions|style[-_ ]guide|dataview[-_ ]test|todo|roadmap|runbook|corrections|template[-_].*|.*[-_ ](?:audit|issues[-_ ]register|prompt|runbook)|audit[-_ ].*)$/i;
// An engine's or a tool's teaching material and a project's developer docs: whatever speaks in them
// (a tutorial game's guide character, a dialogue tool's feature tour), they explain the tool.
const SAMPLE_DIRS = new Set([
  "tutorial", "tutorials", "sample", "samples", "example", "examples", "demo", "demos", "featuretour", "feature_tour", "feature-tour",
  "snippets", "showcase", "devel", "develop", "developer", "developers", "dev-docs", "devdocs", "dev_docs",
  // In-game help and manuals explain the game's controls and rules to the player, not its world.
  "help", "manual", "manuals",
]);
// __DEMO01.txt, tutorial_director.rpy, example-quest.json: a sample by its name.
const SAMPLE_FILES = /^(?:__demo|(?:.*[-_ ])?(?:tutorials?|demos?|examples?|samples?)(?:[-_ ].*)?$)/i;
const TEST_DIRS = new Set(["tests", "test", "__tests__", "spec", "specs", "testing"]);
// An installer's or a package's build files (an installer's own string tables: "Choose the folder…").
const PACKAGING_DIRS = new Set(["install", "installer", "installers", "packaging"]);
// RPG Maker's and other editors' backups (backup/data_2018-06-13/Map002.json): every line is already in data/.
const BACKUP_DIRS = /^(?:backups?|bak|\.?backup[-_ ][\w-]*|[\w-]+[-_ ]backups?)$/i;
const COMPILED_DIRS = new Set(["bin", "obj", "build", "builds", "dist", "out", "temp", "logs"]);
// A mod's or package's manifest (name, version, author, what it changes) is written for a mod loader, not the world.
const CI_FILES = /^(?:\.gitlab-ci\.ya?ml|\.travis\.ya?ml|appveyor\.ya?ml|azure-pipelines\.ya?ml|jenkinsfile|\.editorconfig|\.gitattributes|\.gitignore|package(?:-lock)?\.json|tsconfig(?:\.[\w-]+)?\.json|jsconfig\.json|composer\.json|bunfig\.toml|cargo\.toml|pyproject\.toml|docker-compose\.ya?ml|mkdocs\.ya?ml|\.pre-commit-config\.ya?ml|dependabot\.ya?ml|codecov\.ya?ml|\.readthedocs\.ya?ml|renovate\.json|\.eslintrc(?:\.\w+)?|\.prettierrc(?:\.\w+)?|omnisharp\.json|global\.json|nuget\.config|netlify\.toml|vercel\.json|manifest\.json|packages-lock\.json|[\w.-]+\.twee-config\.(?:ya?ml|json)|metadata\.(?:ya?ml|json)|mod[-_]?info\.(?:json|xml|ya?ml))$/i;
const CHANGELOG_FILES = /^(?:change[-_ ]?log|changes|log|news|release[-_ ]?notes|whats[-_ ]?new|fixes\d[\w.-]*|fixes)(?:[-_.][\w.-]*)?$/i;
const LICENCE_FILES = /^(?:licen[cs]e|copying|notice|third[-_ ]?party[-_ ]?notices?|unlicen[cs]e|patents|attributions?)(?:[-_.!][\w.!-]*)?$/i;
const DOC_FILES = /^(?:readme|install(?:ation)?|building|build|setup|getting[-_ ]?started|contributing|contributors|authors|code[-_ ]of[-_ ]conduct|security|support|funding|credits|bugs|known[-_ ]?issues|pull_request_template|issue_template|bug_report|feature_request|release_template|claude|agents)(?:[-_.][\w.-]*)?$/i;

/**
 * A path's kind when it is skipped by default, else null. `dataBins` are the `bin/` folders that
 * hold data, not build output (buildOutput.ts: judged from the whole manifest).
 */
export function skipKindOfPath(relativePath: string, dataBins?: Set<string>): SkipKind | null {
  const parts = relativePath.split(/[\\/]+/).filter(Boolean);
  const base = parts.pop() ?? "";
  for (let i = 0; i < parts.length; i++) {
    const d = parts[i].toLowerCase();
    if (d === "bin" && dataBins?.has(parts.slice(0, i + 1).join("/"))) continue;
    // A copy of the Ren'Py SDK's own scripts (renpy/common/00nvl_mode.rpy …) shipped beside a game.
    if (d === "renpy" && parts[i + 1]?.toLowerCase() === "common") return "engine";
    if (d.startsWith(".") || PACKAGING_DIRS.has(d)) return "ci";
    if (BACKUP_DIRS.test(d)) return "backup";
    if (ENGINE_DIRS.has(d)) return "engine";
    if (TEST_DIRS.has(d)) return "tests";
    if (COMPILED_DIRS.has(d)) return "compiled";
    if (META_DIRS.has(d)) return "meta";
    if (SAMPLE_DIRS.has(d)) return "samples";
    if (d === "gui") return "ui";
  }
  if (CI_FILES.test(base) || base.startsWith(".")) return "ci";
  const stem = base.includes(".") ? base.slice(0, base.lastIndexOf(".")) : base;
  if (CHANGELOG_FILES.test(stem)) return "changelog";
  if (LICENCE_FILES.test(stem)) return "licence";
  if (DOC_FILES.test(stem)) return "docs";
  if (/^\.?(?:md|markdown|txt)$/i.test(extensionOf(base)) && META_FILES.test(stem)) return "meta";
  if (SAMPLE_FILES.test(stem)) return "samples";
  return null;
}

/** The folder a skip is reported under: the path up to the folder that decided it (or the file itself). */
export function skipGroupOf(relativePath: string, kind: SkipKind): string {
  const parts = relativePath.split(/[\\/]+/).filter(Boolean);
  for (let i = 0; i < parts.length - 1; i++) {
    const d = parts[i].toLowerCase();
    const hit =
      (kind === "ci" && (d.startsWith(".") || PACKAGING_DIRS.has(d))) || (kind === "engine" && ENGINE_DIRS.has(d)) || (kind === "tests" && TEST_DIRS.has(d)) || (kind === "compiled" && COMPILED_DIRS.has(d)) || (kind === "meta" && META_DIRS.has(d)) || (kind === "samples" && SAMPLE_DIRS.has(d)) || (kind === "ui" && d === "gui") || (kind === "backup" && BACKUP_DIRS.test(d));
    if (hit) return `${parts.slice(0, i + 1).join("/")}/`;
  }
  return relativePath;
}

/** `include: engine, docs` / `include: all` lines of userContext (case-insensitive; several lines add up). */
export type Includable = SkipKind | "translations" | "mechanics";

export function parseIncludes(userContext: string | null | undefined): Set<Includable> {
  const out = new Set<Includable>();
  if (!userContext) return out;
  for (const m of userContext.matchAll(/^\s*(?:scan\s+)?include\s*:\s*(.+)$/gim)) {
    for (const raw of m[1].split(/[,\s]+/)) {
      const w = raw.toLowerCase().replace(/s$/, "");
      if (w === "all") {
        for (const k of SKIP_KINDS) out.add(k);
        out.add("translations");
        out.add("mechanics");
      } else if (w === "license" || w === "licence") out.add("licence");
      else if (w === "translation") out.add("translations");
      else if (w === "doc") out.add("docs");
      else if (w === "test") out.add("tests");
      else if (w === "mechanic") out.add("mechanics");
      else if (w === "sample" || w === "tutorial" || w === "example" || w === "demo") out.add("samples");
      else if ((SKIP_KINDS as string[]).includes(w)) out.add(w as SkipKind);
    }
  }
  return out;
}

// ------------------------------------------------------------------ translations

const LANGUAGE_NAMES: Record<string, string> = {
  english: "en", french: "fr", german: "de", spanish: "es", italian: "it", portuguese: "pt", russian: "ru", japanese: "ja",
  korean: "ko", chinese: "zh", schinese: "zh", tchinese: "zh-Hant", czech: "cs", danish: "da", dutch: "nl", finnish: "fi",
  polish: "pl", swedish: "sv", norwegian: "no", turkish: "tr", ukrainian: "uk", malay: "ms", indonesian: "id", greek: "el",
  hungarian: "hu", romanian: "ro", arabic: "ar", hebrew: "he", vietnamese: "vi", thai: "th", piglatin: "x-pig", brazilian: "pt-BR",
  // Paradox's language names (localisation/braz_por/…_l_braz_por.yml).
  braz_por: "pt-BR", simp_chinese: "zh",
};
/** A Paradox localisation names its language at the end: `btr_origins_l_german.yml`, `l_english.yml`. */
const PARADOX_SUFFIX = /(?:^|_)l_([a-z_]+)$/;
const LANG_CODE = /^(?:[a-z]{2,3})(?:[-_](?:[A-Z]{2}|[a-z]{2}|Hans|Hant|Latn|\d{3}))?$/;
const COMMON_CODES = new Set("en fr de es it pt ru ja ko zh cs da nl fi pl sv nb nn tr uk ms el hu ro ar he vi th ca eo et lt lv sk sl sr bg hr fa hi bn gl eu id af gd ga cy sq mk ka hy az ta ur sw".split(" "));

/** The language a path is written in, judged from its folders and name (tl/french/…, locale/fr/…, x_fr.po, fr.po), or null. */
export function languageOfPath(relativePath: string): string | null {
  const parts = relativePath.split(/[\\/]+/).filter(Boolean);
  const base = parts.pop() ?? "";
  for (let i = parts.length - 1; i >= 0; i--) {
    const d = parts[i];
    const lower = d.toLowerCase();
    // gettext's own layout: <locale>/LC_MESSAGES/<domain>.po, every language a catalogue (the source one too).
    if (lower === "lc_messages" && i > 0 && /^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?(?:@\w+)?$/.test(parts[i - 1])) return normLanguage(parts[i - 1]);
    // fr_FR/, pt-BR/: a language with its region is a locale wherever it sits.
    if (/^[a-z]{2}[-_][A-Z]{2}$/.test(d) && COMMON_CODES.has(lower.slice(0, 2))) return normLanguage(d);
    // french/, schinese/: a language's name is a locale folder wherever it sits.
    if (LANGUAGE_NAMES[lower] && lower !== "piglatin") return LANGUAGE_NAMES[lower];
    if (LANGUAGE_NAMES[lower] && i > 0 && /^(?:tl|translations?|locales?|locali[sz]ations?|lang(?:uages?)?|i18n|l10n)$/i.test(parts[i - 1])) return LANGUAGE_NAMES[lower];
    if (LANG_CODE.test(d) && COMMON_CODES.has(lower.slice(0, 2)) && i > 0 && /^(?:translations?|locales?|locali[sz]ations?|lang(?:uages?)?|i18n|l10n|po)$/i.test(parts[i - 1])) return d.replace("_", "-");
  }
  const stem = base.includes(".") ? base.slice(0, base.lastIndexOf(".")) : base;
  const ext = extensionOf(base);
  const parent = parts[parts.length - 1];
  const paradox = ext === ".yml" || ext === ".yaml" ? PARADOX_SUFFIX.exec(stem)?.[1] : undefined;
  if (paradox && LANGUAGE_NAMES[paradox]) return LANGUAGE_NAMES[paradox];
  // A .po is a translation by definition, so any language-code name counts (zu.po, ga.po), not only common ones.
  const PO_CODE = /^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?(?:@\w+)?$/;
  if (ext === ".po" && PO_CODE.test(stem)) return stem.replace("_", "-");
  // A region is two letters, a script four with a capital (zh-Hans): "msb-fire" and "msb-pol" are names, not languages.
  const suffix = /(?:^|[-_. ])([a-z]{2}(?:[-_](?:[A-Za-z]{2}|[A-Z][a-z]{3}))?)$/.exec(stem)?.[1] ?? /\(([a-z]{2}(?:-(?:[A-Za-z]{2}|[A-Z][a-z]{3}))?)\)$/.exec(stem)?.[1];
  if (suffix && COMMON_CODES.has(suffix.slice(0, 2).toLowerCase()) && (suffix.length === 2 || /[-_]/.test(suffix))) {
    // "x_fr.po", "fr.po", "Table_en.asset", "strings.de.json": a code at the end of the name.
    if (ext === ".po" || ext === ".asset" || ext === ".json" || ext === ".csv" || ext === ".yml" || ext === ".yaml" || ext === ".xliff" || ext === ".resx" || ext === ".strings" || stem === suffix) {
      return suffix.replace("_", "-");
    }
  }
  // gettext catalogues kept one folder per language (po/scenarios/de/tutorial.po), checked last: po/game_fr.po is fr.
  if (ext === ".po" && parent && PO_CODE.test(parent) && !/^(?:po|tl|ui|db|js|io)$/i.test(parent)) return parent.replace("_", "-");
  return null;
}

/** Which regional file of the source language is the source: the configured one, a bare language, en-US, then by name. */
function regionRank(language: string, sourceLanguage: string): number {
  if (language.toLowerCase() === sourceLanguage.toLowerCase()) return 0;
  if (!language.includes("-")) return 1;
  return language.toLowerCase() === "en-us" ? 2 : 3;
}

function normLanguage(code: string): string {
  return code.replace("_", "-");
}

/** en and en-US, pt and pt-BR: the same language for choosing the source (a region is a variant of it). */
export function sameLanguage(a: string, b: string): boolean {
  return a.split("-")[0].toLowerCase() === b.split("-")[0].toLowerCase();
}

/**
 * Two-letter language folders beside source files (descript/fi/spells.txt beside descript/spells.txt,
 * or beside descript/ko/spells.txt): a folder named like a common language code is a locale when the
 * same file exists without it, or under another such code. Needs the whole manifest, so it runs in planScan.
 */
function languageFoldersBeside(paths: string[], langOf: Map<string, string>): void {
  const all = new Set(paths);
  const bySlot = new Map<string, { path: string; code: string }[]>();
  for (const p of paths) {
    if (langOf.has(p)) continue;
    const parts = p.split("/");
    for (let i = 0; i < parts.length - 1; i++) {
      const d = parts[i];
      if (!/^[a-z]{2}$/.test(d)) continue;
      const without = [...parts.slice(0, i), ...parts.slice(i + 1)].join("/");
      if (COMMON_CODES.has(d) && all.has(without)) {
        langOf.set(p, d);
        break;
      }
      const slot = `${parts.slice(0, i).join("/")}/*/${parts.slice(i + 1).join("/")}`;
      const list = bySlot.get(slot) ?? [];
      list.push({ path: p, code: d });
      bySlot.set(slot, list);
    }
  }
  // Two common codes side by side make the slot a locale folder: its rarer codes (gd, zu) are languages too.
  for (const list of bySlot.values()) {
    if (new Set(list.filter((x) => COMMON_CODES.has(x.code)).map((x) => x.code)).size < 2) continue;
    for (const x of list) if (!langOf.has(x.path)) langOf.set(x.path, x.code);
  }
}

/** The path of the same file in the source language (tl/french/script.rpy → script.rpy; x_fr.po → x_en.po …), as a key. */
function sourceKeyOf(relativePath: string, language: string): string {
  const parts = relativePath.split(/[\\/]+/).filter(Boolean);
  const base = parts.pop() ?? "";
  const dirs = parts.filter((d) => LANGUAGE_NAMES[d.toLowerCase()] !== language && d.replace("_", "-") !== language && d.toLowerCase() !== "lc_messages");
  const dirsNoTl = dirs.filter((d) => !/^(?:tl)$/i.test(d));
  const stem = base.includes(".") ? base.slice(0, base.lastIndexOf(".")) : base;
  const ext = extensionOf(base);
  const paradox = PARADOX_SUFFIX.exec(stem);
  const bareStem = paradox && LANGUAGE_NAMES[paradox[1]] === language ? stem.slice(0, paradox.index) : stem.replace(languageSuffix(language), "").trim();
  return `${dirsNoTl.join("/")}/${bareStem}|${ext}`;
}

const suffixByLanguage = new Map<string, RegExp>();
/** `_fr`, `.fr`, `(fr)` at the end of a name, for one language: compiled once, not once per path. */
function languageSuffix(language: string): RegExp {
  let re = suffixByLanguage.get(language);
  if (!re) {
    const code = language.replace("-", "[-_]");
    re = new RegExp(`(?:[-_. ]|^)${code}$|\\(${code}\\)$`, "i");
    suffixByLanguage.set(language, re);
  }
  return re;
}

export interface Variant {
  language: string;
  sourceFile: string;
}

export interface ScanPlan {
  includes: Set<Includable>;
  /** Record files of game mechanics (spell effects, stat properties) are scanned too ("include: mechanics"). */
  includeMechanics: boolean;
  /** The archive's source language: `language: xx` in userContext, else the most common language of its files, else "en". */
  sourceLanguage: string;
  /** Compiled Ink JSON at this path has its .ink sources in the same project (buildOutput.ts). */
  hasInkSourceFor(relativePath: string): boolean;
  /** A published Twine HTML at this path has its Twee sources in the same project. */
  hasTweeSourceFor(relativePath: string): boolean;
  /** Why a file is skipped by default, or null when it is scanned. */
  skipKind(relativePath: string): SkipKind | null;
  /** For a file in another language than the source: the source-language file it translates (by key), else null. */
  translationOf(relativePath: string): { language: string } | null;
  /** Other languages' versions of a source-language file. */
  variantsOf(relativePath: string): Variant[];
}

/** Decide, from the manifest's paths alone, what each file is (see ScanPlan). */
export function planScan(paths: string[], userContext?: string | null): ScanPlan {
  const includes = parseIncludes(userContext);
  const langOf = new Map<string, string>();
  for (const p of paths) {
    const l = languageOfPath(p);
    if (l) langOf.set(p, l);
  }
  languageFoldersBeside(paths, langOf);
  const counts = new Map<string, number>();
  for (const [p, l] of langOf) {
    // A PO catalogue's language is its translation's: its msgids are the source whatever it is,
    // so 47 catalogues (and no English one: that is the .pot) say nothing of the source language.
    // Regions count with their language (en_US with en): one language in one region is no majority.
    const lang = l.split("-")[0].toLowerCase();
    if (extensionOf(p) !== ".po") counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  const configured = userContext ? /^\s*(?:source\s+)?language\s*:\s*([A-Za-z]{2,3}(?:-[A-Za-z]{2,4})?)\s*$/im.exec(userContext)?.[1] : undefined;
  // Majority by files, but a bare "en" wins ties: most studios write first in English.
  let sourceLanguage = configured ?? "en";
  if (!configured) {
    let best = counts.get("en") ?? 0;
    for (const [l, n] of counts) if (n > best) (best = n), (sourceLanguage = l);
    // Nine languages of equal size beside a smaller English (a mod shipping the base game's language folders): no
    // language holds most files, and English, being there, is the one studios write first.
    let marked = 0;
    for (const n of counts.values()) marked += n;
    if (counts.has("en") && best * 2 <= marked) sourceLanguage = "en";
    // Files with no language marker (script.rpy beside tl/french/script.rpy) are the source: they outvote per-language counts.
    if (paths.length - langOf.size >= best) sourceLanguage = "en";
  }
  // Every path has one key in a plan (in its own language, else the source's); a path's key is asked for
  // up to four times, and making one is most of planning's time (2,000 paths: ~0.2 s made each time).
  const keys = new Map<string, string>();
  const keyOf = (p: string) => {
    let k = keys.get(p);
    if (k === undefined) keys.set(p, (k = sourceKeyOf(p, langOf.get(p) ?? sourceLanguage)));
    return k;
  };
  const variants = new Map<string, Variant[]>();
  for (const [p, l] of langOf) {
    if (sameLanguage(l, sourceLanguage)) continue;
    const key = keyOf(p);
    const list = variants.get(key) ?? [];
    list.push({ language: l, sourceFile: p });
    variants.set(key, list);
  }
  // The source language kept in several regions (en-US.yml beside en-GB.yml): one file is the source,
  // the other regions are its variants, not a second candidate for every entry.
  const regional = new Map<string, [string, string][]>();
  for (const [p, l] of langOf) {
    if (!sameLanguage(l, sourceLanguage)) continue;
    const key = keyOf(p);
    regional.set(key, [...(regional.get(key) ?? []), [p, l]]);
  }
  const regionalCopies = new Set<string>();
  for (const [key, list] of regional) {
    if (new Set(list.map(([, l]) => l.toLowerCase())).size < 2) continue;
    const [primary] = [...list].sort((a, b) => regionRank(a[1], sourceLanguage) - regionRank(b[1], sourceLanguage) || (a[1] < b[1] ? -1 : 1))[0];
    for (const [p, l] of list) {
      if (p === primary) continue;
      regionalCopies.add(p);
      variants.set(key, [...(variants.get(key) ?? []), { language: l, sourceFile: p }]);
    }
  }
  // A translation whose source-language file is not in the archive (a lone fr.po: its msgids are the
  // source text) is scanned itself: the first of its key stands in for the source, the others are its variants.
  const sourceKeys = new Set<string>();
  for (const p of paths) if (sameLanguage(langOf.get(p) ?? sourceLanguage, sourceLanguage)) sourceKeys.add(keyOf(p));
  const standIns = new Map<string, string>();
  for (const [p, l] of langOf) {
    if (sameLanguage(l, sourceLanguage)) continue;
    const key = keyOf(p);
    if (!sourceKeys.has(key) && !standIns.has(key)) standIns.set(key, p);
  }
  const standInPaths = new Set(standIns.values());
  const dataBins = dataBinFolders(paths);
  return {
    includes,
    includeMechanics: includes.has("mechanics"),
    sourceLanguage,
    hasInkSourceFor: sourcesBeside(paths, [".ink"]),
    hasTweeSourceFor: sourcesBeside(paths, [".tw", ".twee"]),
    skipKind(relativePath) {
      const k = skipKindOfPath(relativePath, dataBins);
      return k && !includes.has(k) ? k : null;
    },
    translationOf(relativePath) {
      if (includes.has("translations")) return null;
      const l = langOf.get(relativePath);
      if (l && regionalCopies.has(relativePath)) return { language: l };
      return l && !sameLanguage(l, sourceLanguage) && !standInPaths.has(relativePath) ? { language: l } : null;
    },
    variantsOf(relativePath) {
      const l = langOf.get(relativePath) ?? sourceLanguage;
      if (standInPaths.has(relativePath)) return (variants.get(keyOf(relativePath)) ?? []).filter((v) => v.sourceFile !== relativePath);
      if (!sameLanguage(l, sourceLanguage)) return [];
      return variants.get(keyOf(relativePath)) ?? [];
    },
  };
}

export { baseName };
