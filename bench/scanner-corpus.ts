/**
 * Rebuilds the scanner's real-project corpus (issue 12) outside git from
 * snapshots of public game repositories, as a studio would zip its project:
 * whole folders, engine/addon folders, CI files and translations included.
 *
 *   bun bench/scanner-corpus.ts [outDir]     # default ~/.cache/lorehold-corpus
 *   ONLY=openxcom,le-phare bun bench/scanner-corpus.ts   # some projects only
 *
 * Each project's repository must have been fetched first (the `fetch` tool
 * of the session leaves a bare git dir under /work/.mirror/<owner>+<name>/repo;
 * LOREHOLD_MIRROR overrides the root). Only files with an extension the
 * scanner accepts are kept. Third-party files: never commit the output.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ALLOWED_EXTENSIONS } from "../src/scanner/extract/index.ts";

export interface CorpusProject {
  /** Folder name under the corpus root, and the project's name in the bench tables. */
  name: string;
  repo: string;
  /** Path prefixes inside the repository (a studio's archive of those folders). */
  paths: string[];
  what: string;
  /** The scanner version that added the project to the corpus (absent: v2's corpus). */
  added?: string;
  /**
   * Held out: never used to tune the scanner. Its facts and judged sample were written before any
   * scanner change made with it in view; its figures are reported beside the tuning corpus's.
   */
  heldOut?: boolean;
  /**
   * Fresh: added after v3 to check it from outside (facts written and a sample judged before the scanner was first run on
   * them); never looked at while tuning, so its figures are the untuned ones.
   */
  fresh?: boolean;
  /**
   * Unseen: a second fresh corpus (v3.2), once the first had been tuned on. Facts written and a sample judged before the
   * scanner was first run on it; changes are made on the other corpora only, and it is measured once more at the end.
   */
  unseen?: boolean;
}

export const PROJECTS: CorpusProject[] = [
  { name: "ink-intercept", repo: "inkle/the-intercept", paths: ["."], what: "Ink (Unity project, .ink source beside compiled JSON)" },
  { name: "yarn-unity", repo: "YarnSpinnerTool/YarnSpinner-Unity", paths: ["."], what: "Yarn Spinner for Unity: samples, C#, docs, CI" },
  { name: "renpy-question", repo: "renpy/renpy", paths: ["the_question", "tutorial/game/tutorial_director.rpy", "tutorial/game/script.rpy"], what: "Ren'Py: The Question with 10+ translations (tl/)" },
  { name: "dialogic-vn", repo: "dialogic-godot/visual-novel-template", paths: ["."], what: "Dialogic 1 (Godot) visual-novel template with its addon" },
  { name: "godot-demos", repo: "godotengine/godot-demo-projects", paths: ["gui", "2d/platformer", "3d/voxel"], what: "Godot demos (no lore; PO translation demo)" },
  { name: "daggerfall-unity", repo: "Interkarma/daggerfall-unity", paths: ["Assets/Localization", "Assets/StreamingAssets", "Assets/Resources", "Assets/Scripts/Game/Questing", "Assets/Scripts/Game/Guilds", "README.md", "CHANGELOG.md"], what: "Unity: Localization string tables, quest/faction/biography text, C#" },
  { name: "angband", repo: "angband/angband", paths: ["lib", "docs", "README.md", "changes.txt", ".github"], what: "Roguelike record files (monster/object/artifact …), help, CI" },
  { name: "eadras-wiki", repo: "SilverCheetah/Eadras-Worldbuilding-Wiki", paths: ["."], what: "Markdown worldbuilding wiki (Obsidian vault)" },
  // v2.1: the corpus was PO-heavy; this one is gettext in ~47 languages beside YAML scenarios in ~30.
  { name: "unknown-horizons", repo: "unknown-horizons/unknown-horizons", paths: ["content", "po", "README.md"], what: "PO catalogues in ~47 languages (one folder per language), YAML scenarios with translations, building YAML, GUI XML", added: "v2.1" },
  // v2.2: the issue lists Twine; an original SugarCube city sandbox in Twee 3 (one file per location, districts, guilds, a quest), its published build beside it (absent from the snapshot).
  { name: "twine-ordson", repo: "danielbarnes175/SonsOfOrdson", paths: ["src", "dist", "README.md"], what: "Twine (SugarCube 2, Twee 3 source per location, twee-config YAML, published HTML)", added: "v2.2" },
  // v3 held-out corpus: engines and formats of other projects, judged before any change (BENCHMARKS "Scanner v3").
  { name: "ink-library", repo: "inkle/ink-library", paths: ["Snippets", "Stories/LD41 Emoji", "README.md"], what: "Ink: a complete story (The Intercept left out: it is in the tuning corpus) beside the library's snippets (samples) and a tool list", added: "v3", heldOut: true },
  { name: "foodjustice-renpy", repo: "oele-isis-vanderbilt/FoodJustice_RenPy", paths: ["."], what: "Ren'Py educational visual novel (two stories), its teachers' dashboard, Docker/CI files", added: "v3", heldOut: true },
  { name: "angel-seasons", repo: "EternalFeather/Angel_Seasons_Renpy_RPG", paths: ["."], what: "Ren'Py RPG written in Chinese: battle system, encyclopedia, camera/engine scripts", added: "v3", heldOut: true },
  { name: "godot-open-rpg", repo: "gdquest-demos/godot-open-rpg", paths: ["."], what: "Godot 4 RPG demo: .tres/.tscn scenes and dialogue, GDScript, addons", added: "v3", heldOut: true },
  // Fresh: added after the v3 rules were written and judged once, never used to change them.
  { name: "lincity-ng", repo: "lincity-ng/lincity-ng", paths: ["data", "doc", "README.md"], what: "City builder: in-game help pages in 14 languages (data/help/<ll>/), gettext catalogues, GUI XML, developer docs", added: "v3", heldOut: true },
  { name: "nethack", repo: "NetHack/NetHack", paths: ["."], what: "Roguelike source tree: Guidebook and developer docs, level and quest data, ports' READMEs", added: "v3", heldOut: true },
  // v3.1 fresh corpus: engines and formats none of the above uses, facts written and a sample judged before the first scan.
  { name: "openxcom", repo: "OpenXcom/OpenXcom", paths: ["."], what: "C++ engine of X-COM: UFOpaedia and game text as YAML language files (en-US beside en-GB), mods' metadata.yml, changelog, READMEs, CI", added: "v3.1", fresh: true },
  { name: "twine-lane", repo: "rvince452/twine-demo-game", paths: ["."], what: "Twine (SugarCube 2, Twee 3 source): a farmhouse's rooms, characters and objects, debug and unused passages, notes", added: "v3.1", fresh: true },
  { name: "road-to-glory", repo: "Tilcob/Road-To-Glory", paths: ["."], what: "Java (libGDX) RPG: Yarn dialogues, quests and a cutscene, Yarn test files, item JSON, developer docs per system", added: "v3.1", fresh: true },
  { name: "le-phare", repo: "CreaJeu/LePhareFarAway", paths: ["."], what: "Godot 4 game written in French: JSON dialogues and missions, notes in .tscn scenes, an addon, credits", added: "v3.1", fresh: true },
  { name: "greek-punishment", repo: "pippinbarr/lets-play-ancient-greek-punishment-the-twine", paths: ["."], what: "Twine published as HTML (no Twee source) beside the author's process journals in Markdown", added: "v3.1", fresh: true },
  // v3.2 unseen corpus: engines and formats of no other corpus (ChoiceScript, RPG Maker MV, a Starsector mod, a Stellaris mod).
  { name: "asgard-choicescript", repo: "RunawayStudent/Adventures-in-Asgard", paths: ["."], what: "ChoiceScript game (Norse myths): scenes/*.txt, older copies of the scenes at the root, stats screen", added: "v3.2", unseen: true },
  { name: "ruseland-rpgmaker", repo: "Archeia/RuselandNessy", paths: ["."], what: "RPG Maker MV project: data/*.json (maps with event text, items, skills, system), dated backups of data/, tileset notes", added: "v3.2", unseen: true },
  { name: "sotf-starsector", repo: "InventRaccoon/secrets-of-the-frontier", paths: ["."], what: "Starsector mod (Java): descriptions.csv, characters' combat chatter JSON, mission texts, ship and weapon CSV tables, modder notes", added: "v3.2", unseen: true },
  { name: "mebtr-stellaris", repo: "80LK/MEBtRFix", paths: ["."], what: "Stellaris mod (Mass Effect universe): Paradox script .txt initializers, localisation YAML in english plus nine language folders (l_<language>.yml)", added: "v3.2", unseen: true },
];

/** The v2 corpus (25.2 MB): the figures before v2.1 are on these projects only. */
export const V2_PROJECTS = PROJECTS.filter((p) => !p.added).map((p) => p.name);
/** The tuning corpus: every project the scanner was tuned on (v2.2's "combined"). */
export const TUNING_PROJECTS = PROJECTS.filter((p) => !p.heldOut && !p.fresh && !p.unseen).map((p) => p.name);
/** The held-out corpus (v3): never used to tune the scanner. */
export const HELD_OUT_PROJECTS = PROJECTS.filter((p) => p.heldOut).map((p) => p.name);
/** The fresh corpus (v3.1): first scanned after its facts and judgements were written, never tuned on. */
export const FRESH_PROJECTS = PROJECTS.filter((p) => p.fresh).map((p) => p.name);
/** The unseen corpus (v3.2): a second one never tuned on, measured before any change and once at the end. */
export const UNSEEN_PROJECTS = PROJECTS.filter((p) => p.unseen).map((p) => p.name);

const MIRROR = process.env.LOREHOLD_MIRROR ?? "/work/.mirror";

function gitDir(repo: string): string {
  return join(MIRROR, repo.replace("/", "+"), "repo");
}

export function corpusRoot(arg?: string): string {
  return arg ?? process.env.LOREHOLD_CORPUS ?? join(homedir(), ".cache", "lorehold-corpus");
}

function build(root: string): void {
  const allowed = new Set(ALLOWED_EXTENSIONS);
  mkdirSync(root, { recursive: true });
  const summaryPath = join(root, "corpus.json");
  // ONLY=a,b rebuilds some projects and keeps the others' entries.
  const only = process.env.ONLY?.split(",");
  const summary: Record<string, { files: number; bytes: number; commit: string }> = only && existsSync(summaryPath) ? JSON.parse(readFileSync(summaryPath, "utf8")) : {};
  for (const p of PROJECTS.filter((x) => !only || only.includes(x.name))) {
    const git = gitDir(p.repo);
    if (!existsSync(git)) {
      console.warn(`skip ${p.name}: ${git} missing (fetch github:${p.repo} first)`);
      continue;
    }
    const dir = join(root, p.name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const commit = execFileSync("git", ["--git-dir", git, "rev-parse", "HEAD"]).toString().trim();
    // ls-tree + cat-file per blob, not git archive: a snapshot may lack its largest blobs (binaries).
    const tree = execFileSync("git", ["--git-dir", git, "ls-tree", "-r", "-l", "-z", commit, "--", ...p.paths], { maxBuffer: 1 << 28 }).toString();
    let files = 0;
    let bytes = 0;
    for (const row of tree.split("\0")) {
      const m = /^\d+ blob ([0-9a-f]+)\s+(\d+)\t(.+)$/.exec(row);
      if (!m) continue;
      const [, sha, sizeText, path] = m;
      const base = path.slice(path.lastIndexOf("/") + 1);
      const dot = base.lastIndexOf(".");
      const ext = dot >= 0 ? base.slice(dot).toLowerCase() : "";
      const size = Number(sizeText);
      // The upload limit per file is 50 MB; keep what a studio could send.
      if (!allowed.has(ext) || size === 0 || size > 50 * 1024 * 1024) continue;
      let data: Buffer;
      try {
        data = execFileSync("git", ["--git-dir", git, "cat-file", "blob", sha], { maxBuffer: 1 << 27, stdio: ["ignore", "pipe", "ignore"] });
      } catch {
        continue; // blob absent from the snapshot
      }
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), data);
      files++;
      bytes += size;
    }
    summary[p.name] = { files, bytes, commit };
    console.log(`${p.name.padEnd(18)} ${String(files).padStart(5)} files ${(bytes / 1e6).toFixed(1).padStart(6)} MB  ${p.repo}@${commit.slice(0, 10)}`);
  }
  writeFileSync(summaryPath, JSON.stringify(summary, null, 2));
}

if (import.meta.main) build(corpusRoot(process.argv[2]));
