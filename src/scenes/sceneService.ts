import type { InteractDeps } from "../core/context.ts";
import { nowIso } from "../core/context.ts";
import { ApiError, invalidRequest } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { parseJsonColumn } from "../core/json.ts";
import { writeTx } from "../db/openDatabase.ts";
import { findProject } from "../projects/projectService.ts";
import { hasKnowledge, loadMindProfile } from "../npc/mindProfile.ts";
import type { SceneContext } from "../npc/interactModel.ts";
import { mindProfileRow } from "../lore/minds/mindStore.ts";
import { checkpointSceneMind } from "./checkpointScene.ts";
import type { CreateSceneInput, PatchSceneInput, SceneMindInput } from "./sceneSchemas.ts";
import { SCENE_LIMITS } from "./sceneSchemas.ts";
import {
  addSceneMind,
  deleteScene,
  idleScenes,
  insertScene,
  linesAfter,
  removeSceneMind,
  sceneMinds,
  sceneRow,
  setTalkativeness,
  touchScene,
  type SceneRow,
} from "./sceneStore.ts";
import type { SceneRuns } from "./SceneRuns.ts";

export const DEFAULT_TALKATIVENESS = 0.5;
/** lines of the transcript GET shows (the newest) */
const VIEW_LINES = 50;

export const sceneNotFound = () => new ApiError(404, "Scene not found");

export interface SceneDeps extends InteractDeps {
  runs: SceneRuns;
}

/** A scene of the caller's project, or 404 (another project's scene reads as absent). */
export function loadScene(deps: InteractDeps, projectId: string, sceneId: string): SceneRow {
  const scene = sceneRow(deps.db, projectId, sceneId);
  if (!scene) throw sceneNotFound();
  return scene;
}

function entry(m: SceneMindInput): { mindId: string; talkativeness?: number } {
  return typeof m === "string" ? { mindId: m } : m;
}

/** Each new member must be a mind of this project with knowledge (the interact rules), named once. */
function checkMembers(deps: InteractDeps, projectId: string, list: SceneMindInput[]): { mindId: string; talkativeness?: number }[] {
  const out = list.map(entry);
  const ids = out.map((m) => m.mindId);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length) throw invalidRequest(...[...new Set(twice)].map((id) => `minds: ${id} is listed twice`));
  for (const m of out) if (!hasKnowledge(loadMindProfile(deps, projectId, m.mindId))) throw new ApiError(400, "Entity Mind has no knowledge tags configured");
  return out;
}

export function createScene(deps: InteractDeps, projectId: string, input: CreateSceneInput): { sceneId: string } {
  if (!findProject(deps, projectId)) throw new ApiError(404, "Project not found");
  const members = checkMembers(deps, projectId, input.minds);
  const context: SceneContext = { ...(input.context ?? {}) };
  for (const k of Object.keys(context) as (keyof SceneContext)[]) if (context[k] === null) delete context[k];
  if (input.location) context.location = input.location;
  const id = newId("scene");
  const now = nowIso(deps);
  writeTx(deps.db, () => {
    insertScene(deps.db, { id, project_id: projectId, player_id: input.playerId ?? null, context: Object.keys(context).length ? JSON.stringify(context) : null, created_at: now, last_active_at: now });
    for (const m of members) addSceneMind(deps.db, id, { mind_id: m.mindId, talkativeness: m.talkativeness ?? DEFAULT_TALKATIVENESS, joined_seq: 0, heard_seq: 0, joined_at: now });
  });
  return { sceneId: id };
}

export function sceneContext(scene: SceneRow): SceneContext {
  return parseJsonColumn<SceneContext>(scene.context, {});
}

export function sceneView(deps: InteractDeps, projectId: string, sceneId: string) {
  const scene = loadScene(deps, projectId, sceneId);
  const names = new Map<string, string>();
  const nameOf = (id: string | null, speaker: string) => (id ? (names.get(id) ?? speaker) : speaker);
  const minds = sceneMinds(deps.db, scene.id).map((m) => {
    const name = mindProfileRow(deps.db, projectId, m.mind_id)?.entity_name ?? "";
    names.set(m.mind_id, name);
    return { mindId: m.mind_id, character: name, talkativeness: m.talkativeness, joinedAt: m.joined_at };
  });
  const lines = linesAfter(deps.db, scene.id, 0, VIEW_LINES).map((l) => ({ seq: l.seq, mindId: l.mind_id, character: nameOf(l.mind_id, l.speaker), text: l.text, at: l.created_at }));
  const expiresAt = new Date(Date.parse(scene.last_active_at) + deps.config.sceneIdleSeconds * 1000).toISOString();
  return {
    sceneId: scene.id,
    playerId: scene.player_id,
    context: sceneContext(scene),
    minds,
    lines,
    turns: scene.turns,
    createdAt: scene.created_at,
    lastActiveAt: scene.last_active_at,
    expiresAt,
  };
}

/**
 * Minds walk in (they hear what is said from now on, nothing said before) and out (their memory of the scene is
 * checkpointed). A mind already present that is listed in `join` takes the new talkativeness.
 */
export function patchScene(deps: InteractDeps, projectId: string, sceneId: string, input: PatchSceneInput) {
  const scene = loadScene(deps, projectId, sceneId);
  const join = checkMembers(deps, projectId, input.join ?? []);
  const leave = [...new Set(input.leave ?? [])];
  const present = new Set(sceneMinds(deps.db, scene.id).map((m) => m.mind_id));
  const problems = leave.filter((id) => !present.has(id)).map((id) => `leave: ${id} is not in the scene`);
  problems.push(...join.filter((m) => leave.includes(m.mindId)).map((m) => `join: ${m.mindId} also leaves`));
  if (problems.length) throw invalidRequest(...problems);
  const after = new Set([...present, ...join.map((m) => m.mindId)].filter((id) => !leave.includes(id)));
  if (after.size > SCENE_LIMITS.minds) throw invalidRequest(`minds: at most ${SCENE_LIMITS.minds} in a scene`);
  const now = nowIso(deps);
  writeTx(deps.db, () => {
    const current = sceneRow(deps.db, projectId, scene.id)!;
    for (const m of join) {
      if (present.has(m.mindId)) {
        if (m.talkativeness !== undefined) setTalkativeness(deps.db, scene.id, m.mindId, m.talkativeness);
      } else {
        addSceneMind(deps.db, scene.id, { mind_id: m.mindId, talkativeness: m.talkativeness ?? DEFAULT_TALKATIVENESS, joined_seq: current.last_seq, heard_seq: current.last_seq, joined_at: now });
      }
    }
    for (const id of leave) removeSceneMind(deps.db, scene.id, id);
    touchScene(deps.db, scene.id, now);
  });
  for (const id of leave) checkpointSceneMind(deps, projectId, scene, id);
  return sceneView(deps, projectId, scene.id);
}

/** Ends a scene: its running turn is cancelled, every member's memory of it checkpointed, its rows deleted. */
export async function endScene(deps: SceneDeps, projectId: string, sceneId: string): Promise<{ sceneId: string; ended: true; memoryCheckpoints: number }> {
  const scene = loadScene(deps, projectId, sceneId);
  await deps.runs.cancel(scene.id);
  let memoryCheckpoints = 0;
  for (const m of sceneMinds(deps.db, scene.id)) if (checkpointSceneMind(deps, projectId, scene, m.mind_id)) memoryCheckpoints++;
  deleteScene(deps.db, scene.id);
  return { sceneId: scene.id, ended: true, memoryCheckpoints };
}

/** The `scene-expiry` job: scenes idle past config.sceneIdleSeconds end as if deleted. */
export async function expireIdleScenes(deps: SceneDeps): Promise<{ expired: number }> {
  const before = new Date(deps.clock.now().getTime() - deps.config.sceneIdleSeconds * 1000).toISOString();
  let expired = 0;
  for (const s of idleScenes(deps.db, before, 100)) {
    if (deps.runs.running(s.id)) continue; // a turn in progress is activity: it touches the scene when it ends
    await endScene(deps, s.project_id, s.id);
    expired++;
  }
  return { expired };
}
