export { LoreholdClient, type InteractRequest, type InteractResponse, type InteractStreamEvent, type LoreholdClientOptions, type TurnBehaviour, type BehaviourEmotion, type BehaviourAction, type ActionResult, type TrustView, type SceneRequest, type SceneView, type SceneChange, type SceneTurnRequest, type SceneTurnResponse, type SceneLine, type SceneSpeaker, type SceneStreamEvent } from "./client.js";
export { LoreholdError, codeForStatus, type LoreholdErrorCode } from "./errors.js";
export { packFolder, type ScanFolderOptions, type ScanManifest } from "./scanFolder.js";
export { retryAfterSeconds, type CallOptions } from "./transport.js";
export { buildZip } from "./zip.js";
export type * from "./generated/api.js";
