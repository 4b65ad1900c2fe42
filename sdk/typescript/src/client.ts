import { LoreholdError, streamError } from "./errors.js";
import { readSse } from "./sse.js";
import { scanFolder, type ScanFolderOptions } from "./scanFolder.js";
import { Transport, type CallOptions, type TransportOptions } from "./transport.js";
import type * as Api from "./generated/api.js";

export type InteractRequest = Api.PostV1NpcInteractBody;
export type InteractResponse = Api.PostV1NpcInteractResponse;
/** What a mind with behaviour did with its words (metadata.behaviour). */
export type TurnBehaviour = NonNullable<InteractResponse["metadata"]["behaviour"]>;
export type BehaviourEmotion = TurnBehaviour["emotion"];
export type BehaviourAction = TurnBehaviour["actions"][number];
/** What became of an earlier action, reported with the next interact (`actionResults`). */
export type ActionResult = NonNullable<InteractRequest["actionResults"]>[number];
export type TrustView = Api.GetV1NpcByMindIdTrustByPlayerIdResponse;
/**
 * What interactStream() yields: each token as it is generated; for a mind with behaviour, one `emotion` and one
 * `action` per action after the last token; then the whole reply (the JSON interact() returns).
 */
export type InteractStreamEvent =
  | { type: "token"; text: string }
  | { type: "emotion"; emotion: BehaviourEmotion }
  | { type: "action"; action: BehaviourAction }
  | { type: "reply"; reply: InteractResponse };

export type SceneRequest = Api.PostV1ScenesBody;
export type SceneView = Api.GetV1ScenesBySceneIdResponse;
export type SceneChange = Api.PatchV1ScenesBySceneIdBody;
export type SceneTurnRequest = Api.PostV1ScenesBySceneIdTurnBody;
export type SceneTurnResponse = Api.PostV1ScenesBySceneIdTurnResponse;
export type SceneLine = SceneTurnResponse["lines"][number];
/** Who speaks a scene's next line and why (`why.reason`: requested, addressed or talkativeness). */
export type SceneSpeaker = { mindId: string; character: string; why: { reason: string; weight?: number; chance?: number; relevance?: number } };
/**
 * What sceneTurnStream() yields, per line in order: `speaker`, its `token`s (a typed mind's `emotion` and `action`s),
 * then the `line`; at the end the whole `turn` (the JSON sceneTurn() returns).
 */
export type SceneStreamEvent =
  | { type: "speaker"; speaker: SceneSpeaker }
  | { type: "token"; text: string }
  | { type: "emotion"; emotion: BehaviourEmotion }
  | { type: "action"; action: BehaviourAction }
  | { type: "line"; line: SceneLine }
  | { type: "turn"; turn: SceneTurnResponse };

export type LoreholdClientOptions = TransportOptions;

/**
 * A client of a Lorehold server (interface spec "Endpoints"). Every failure
 * is a LoreholdError carrying one of the spec's SDK codes.
 */
export class LoreholdClient {
  readonly #t: Transport;

  constructor(options: LoreholdClientOptions) {
    this.#t = new Transport(options);
  }

  get baseUrl(): string {
    return this.#t.baseUrl;
  }

  toJSON(): Record<string, unknown> {
    return this.#t.toJSON();
  }

  /** GET /v1/npc/{mindId}/trust/{playerId} (Server Key): a player's trust in a mind with behaviour. */
  getTrust(mindId: string, playerId: string, opts?: CallOptions): Promise<TrustView> {
    return this.#t.json<TrustView>("GET", `/npc/${encodeURIComponent(mindId)}/trust/${encodeURIComponent(playerId)}`, undefined, opts);
  }

  /** PUT /v1/npc/{mindId}/trust/{playerId} (Server Key): set it when the game's own events move it (within the mind's range). */
  setTrust(mindId: string, playerId: string, value: number, opts?: CallOptions): Promise<TrustView> {
    return this.#t.json<TrustView>("PUT", `/npc/${encodeURIComponent(mindId)}/trust/${encodeURIComponent(playerId)}`, { value }, opts);
  }

  /** POST /v1/npc/interact (Server Key): an NPC's reply. */
  interact(req: InteractRequest, opts?: CallOptions): Promise<InteractResponse> {
    return this.#t.json<InteractResponse>("POST", "/npc/interact", req, opts);
  }

  /**
   * The same reply streamed (SSE): yields `{type: "token"}` events as the
   * model writes, then one `{type: "reply"}` with the final JSON. Errors
   * before the first token (429, 402, ...) are thrown like interact()'s; a
   * failure mid-stream is thrown from the iterator. Breaking out of the loop
   * (or the signal) cancels the request.
   */
  async *interactStream(req: InteractRequest, opts: CallOptions = {}): AsyncGenerator<InteractStreamEvent> {
    const res = await this.#t.send("POST", "/npc/interact", opts, { body: JSON.stringify(req), contentType: "application/json", accept: "text/event-stream" });
    try {
      if (!(res.response.headers.get("content-type") ?? "").includes("text/event-stream") || !res.response.body) {
        // a server that answered in JSON (no streaming): one reply
        yield { type: "reply", reply: (await res.response.json()) as InteractResponse };
        return;
      }
      let finished = false;
      try {
        for await (const ev of readSse(res.response.body)) {
          const data = JSON.parse(ev.data);
          if (ev.event === "token") yield { type: "token", text: String(data.text ?? "") };
          else if (ev.event === "emotion") yield { type: "emotion", emotion: data as BehaviourEmotion };
          else if (ev.event === "action") yield { type: "action", action: data as BehaviourAction };
          else if (ev.event === "done") {
            finished = true;
            yield { type: "reply", reply: data as InteractResponse };
          } else if (ev.event === "error") throw streamError(data);
        }
      } catch (e) {
        if (e instanceof LoreholdError) throw e;
        throw this.#t.streamFailure(e, opts.signal, res.timeout);
      }
      if (!finished) throw new LoreholdError("TRANSPORT_ERROR", "the stream ended before the reply");
    } finally {
      res.done();
      // stops the server's generation when the caller leaves the loop early
      await res.response.body?.cancel().catch(() => {});
    }
  }

  // Scenes (Server Key): several minds in one conversation (docs/scenes.md)

  /** POST /v1/scenes: start a scene with these minds. */
  createScene(req: SceneRequest, opts?: CallOptions): Promise<Api.PostV1ScenesResponse> {
    return this.#t.json<Api.PostV1ScenesResponse>("POST", "/scenes", req, opts);
  }
  /** GET /v1/scenes/{id}: its minds and its newest lines. */
  scene(sceneId: string, opts?: CallOptions): Promise<SceneView> {
    return this.#t.json<SceneView>("GET", `/scenes/${encodeURIComponent(sceneId)}`, undefined, opts);
  }
  /** PATCH /v1/scenes/{id}: minds join or leave. */
  changeScene(sceneId: string, change: SceneChange, opts?: CallOptions): Promise<SceneView> {
    return this.#t.json<SceneView>("PATCH", `/scenes/${encodeURIComponent(sceneId)}`, change, opts);
  }
  /** DELETE /v1/scenes/{id}: end it (each mind's memory of it is checkpointed for the player). */
  endScene(sceneId: string, opts?: CallOptions): Promise<Api.DeleteV1ScenesBySceneIdResponse> {
    return this.#t.json<Api.DeleteV1ScenesBySceneIdResponse>("DELETE", `/scenes/${encodeURIComponent(sceneId)}`, undefined, opts);
  }
  /** POST /v1/scenes/{id}/turn: the player's line (or none: the minds talk among themselves) and the lines that answer. */
  sceneTurn(sceneId: string, req: SceneTurnRequest = {}, opts?: CallOptions): Promise<SceneTurnResponse> {
    return this.#t.json<SceneTurnResponse>("POST", `/scenes/${encodeURIComponent(sceneId)}/turn`, req, opts);
  }

  /** The same turn streamed (SSE); breaking out of the loop (or the signal) cancels it. Errors as interactStream(). */
  async *sceneTurnStream(sceneId: string, req: SceneTurnRequest = {}, opts: CallOptions = {}): AsyncGenerator<SceneStreamEvent> {
    const path = `/scenes/${encodeURIComponent(sceneId)}/turn`;
    const res = await this.#t.send("POST", path, opts, { body: JSON.stringify(req), contentType: "application/json", accept: "text/event-stream" });
    try {
      if (!(res.response.headers.get("content-type") ?? "").includes("text/event-stream") || !res.response.body) {
        yield { type: "turn", turn: (await res.response.json()) as SceneTurnResponse };
        return;
      }
      let finished = false;
      try {
        for await (const ev of readSse(res.response.body)) {
          const data = JSON.parse(ev.data);
          if (ev.event === "speaker") yield { type: "speaker", speaker: data as SceneSpeaker };
          else if (ev.event === "token") yield { type: "token", text: String(data.text ?? "") };
          else if (ev.event === "emotion") yield { type: "emotion", emotion: data as BehaviourEmotion };
          else if (ev.event === "action") yield { type: "action", action: data as BehaviourAction };
          else if (ev.event === "line") yield { type: "line", line: data as SceneLine };
          else if (ev.event === "done") {
            finished = true;
            yield { type: "turn", turn: data as SceneTurnResponse };
          } else if (ev.event === "error") throw streamError(data);
        }
      } catch (e) {
        if (e instanceof LoreholdError) throw e;
        throw this.#t.streamFailure(e, opts.signal, res.timeout);
      }
      if (!finished) throw new LoreholdError("TRANSPORT_ERROR", "the stream ended before the turn's end");
    } finally {
      res.done();
      await res.response.body?.cancel().catch(() => {});
    }
  }

  // Lore read API (Editor Key)

  minds(opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreMindsResponse>("GET", "/lore/minds", undefined, opts);
  }
  tags(opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreTagsResponse>("GET", "/lore/tags", undefined, opts);
  }
  locations(opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreLocationsResponse>("GET", "/lore/locations", undefined, opts);
  }
  relationships(query: Api.GetV1LoreRelationshipsQuery = {}, opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreRelationshipsResponse>("GET", "/lore/relationships", undefined, opts, query);
  }
  relationshipTypes(opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreRelationshipTypesResponse>("GET", "/lore/relationship-types", undefined, opts);
  }
  documents(query: Api.GetV1LoreDocumentsQuery = {}, opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreDocumentsResponse>("GET", "/lore/documents", undefined, opts, query);
  }
  document(documentId: string, opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreDocumentsByDocumentIdResponse>("GET", `/lore/documents/${encodeURIComponent(documentId)}`, undefined, opts);
  }
  exportDocuments(query: Api.GetV1LoreDocumentsExportQuery = {}, opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreDocumentsExportResponse>("GET", "/lore/documents/export", undefined, opts, query);
  }
  projectSettings(opts?: CallOptions) {
    return this.#t.json<Api.GetV1LoreProjectSettingsResponse>("GET", "/lore/project-settings", undefined, opts);
  }

  // Scanner (Editor Key)

  estimate(body: Api.PostV1ScannerEstimateBody, opts?: CallOptions) {
    return this.#t.json<Api.PostV1ScannerEstimateResponse>("POST", "/scanner/estimate", body, opts);
  }
  submitArchive(body: Api.PostV1ScannerSubmitArchiveBody, opts?: CallOptions) {
    return this.#t.json<Api.PostV1ScannerSubmitArchiveResponse>("POST", "/scanner/submit-archive", body, opts);
  }
  /** PUT the ZIP to the signed uploadUrl submitArchive() returned (no key is sent there). */
  async uploadArchive(uploadUrl: string, zip: Uint8Array, opts: CallOptions = {}): Promise<Api.PutV1ScannerUploadsByJobIdResponse> {
    const res = await this.#t.send("PUT", "", opts, { absolute: uploadUrl, body: zip as unknown as RequestInit["body"], contentType: "application/zip" });
    try {
      return (await res.response.json()) as Api.PutV1ScannerUploadsByJobIdResponse;
    } finally {
      res.done();
    }
  }
  confirm(jobId: string, opts?: CallOptions) {
    return this.#t.json<Api.PostV1ScannerSubmitArchiveConfirmResponse>("POST", "/scanner/submit-archive/confirm", { jobId }, opts);
  }
  jobs(opts?: CallOptions) {
    return this.#t.json<Api.GetV1ScannerJobsResponse>("GET", "/scanner/jobs", undefined, opts);
  }
  job(jobId: string, opts?: CallOptions) {
    return this.#t.json<Api.GetV1ScannerJobsByJobIdResponse>("GET", `/scanner/jobs/${encodeURIComponent(jobId)}`, undefined, opts);
  }
  cancelJob(jobId: string, opts?: CallOptions) {
    return this.#t.json<Api.DeleteV1ScannerJobsByJobIdResponse>("DELETE", `/scanner/jobs/${encodeURIComponent(jobId)}`, undefined, opts);
  }
  commit(body: Api.PostV1ScannerCommitBody, opts?: CallOptions) {
    return this.#t.json<Api.PostV1ScannerCommitResponse>("POST", "/scanner/commit", body, opts);
  }
  rescan(body: Api.PostV1ScannerRescanBody, opts?: CallOptions) {
    return this.#t.json<Api.PostV1ScannerRescanResponse>("POST", "/scanner/rescan", body, opts);
  }
  /** Manifest + ZIP of a folder, submit, upload, confirm, poll to the end (see ScanFolderOptions). Node/Bun only. */
  scanFolder(dir: string, opts?: ScanFolderOptions) {
    return scanFolder(this, dir, opts);
  }
}
