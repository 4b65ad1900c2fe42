# SAMPLE — Godot 4 GDScript client for Lorehold. Not run by Lorehold's CI (no Godot there): read it, adapt it.
# The same calls as the TypeScript and C# clients: interact(), interact_stream() (SSE), scenes (create_scene,
# scene_turn, update_scene, end_scene), the spec's SDK codes, one retry after Retry-After on 429. Keep the
# Server Key on your game backend; this talks to Lorehold directly only for prototyping.
#
#   var lorehold := LoreholdClient.new("http://127.0.0.1:8080", server_key)
#   add_child(lorehold)
#   var r := await lorehold.interact({"text": "Hello", "entityMindId": "mind_…", "playerId": "player-1"})
#   if r.ok: print(r.reply.character, ": ", r.reply.response) else: push_warning(r.code + " " + str(r.error))
class_name LoreholdClient
extends Node

const CONFIG_ERROR := "CONFIG_ERROR"
const VALIDATION_ERROR := "VALIDATION_ERROR"
const AUTH_FAILED := "AUTH_FAILED"
const INSUFFICIENT_CREDITS := "INSUFFICIENT_CREDITS"
const RATE_LIMITED := "RATE_LIMITED"
const SERVICE_UNAVAILABLE := "SERVICE_UNAVAILABLE"
const REQUEST_FAILED := "REQUEST_FAILED"
const TRANSPORT_ERROR := "TRANSPORT_ERROR"

signal token(text: String)
## A mind with behaviour (typed turns): after the last token, its emotion ({name, intensity}) and each action ({id, name, params}).
signal emotion(value: Dictionary)
signal action(value: Dictionary)

var base_url: String
var _key: String # never printed
var timeout_seconds := 60.0
var max_retry_delay_seconds := 10

func _init(url: String = "", api_key: String = "") -> void:
	base_url = url.trim_suffix("/").trim_suffix("/v1")
	_key = api_key

static func code_for_status(status: int) -> String:
	match status:
		400: return VALIDATION_ERROR
		401: return AUTH_FAILED
		402: return INSUFFICIENT_CREDITS
		429: return RATE_LIMITED
		503: return SERVICE_UNAVAILABLE
	return REQUEST_FAILED

func _fail(code: String, status: int = 0, body: Variant = null) -> Dictionary:
	var error = body.get("error") if body is Dictionary else null
	return {"ok": false, "code": code, "status": status, "error": error, "body": body}

## POST /v1/npc/interact. Resolves to {ok: true, reply: {...}} or {ok: false, code, status, error, body}.
func interact(request: Dictionary) -> Dictionary:
	var r := await _send(HTTPClient.METHOD_POST, "/v1/npc/interact", request)
	return {"ok": true, "reply": r.body} if r.ok else r

## POST /v1/scenes: several minds in one conversation. `minds` holds mind ids (or {mindId, talkativeness});
## `options` may hold location, playerId, context. Resolves to {ok: true, scene_id} or a failure as interact's.
func create_scene(minds: Array, options: Dictionary = {}) -> Dictionary:
	var body := options.duplicate()
	body["minds"] = minds
	var r := await _send(HTTPClient.METHOD_POST, "/v1/scenes", body)
	return {"ok": true, "scene_id": r.body.sceneId} if r.ok else r

## POST /v1/scenes/{id}/turn: the player's line ("" lets the minds talk among themselves), then up to max_lines
## lines in order. Resolves to {ok: true, lines: [{mindId, character, response, metadata}], metadata} (metadata.stopped:
## a later line failed, e.g. 429, and the lines before it stand), or a failure (a 429 for the first line: RATE_LIMITED).
func scene_turn(scene_id: String, text: String = "", max_lines: int = 1, speaker: String = "") -> Dictionary:
	var body := {"maxLines": max_lines}
	if text != "": body["text"] = text
	if speaker != "": body["speaker"] = speaker
	var r := await _send(HTTPClient.METHOD_POST, "/v1/scenes/" + scene_id.uri_encode() + "/turn", body)
	return {"ok": true, "lines": r.body.lines, "metadata": r.body.metadata} if r.ok else r

## PATCH /v1/scenes/{id}: minds walk in (join) or out (leave).
func update_scene(scene_id: String, join: Array = [], leave: Array = []) -> Dictionary:
	var body := {}
	if not join.is_empty(): body["join"] = join
	if not leave.is_empty(): body["leave"] = leave
	var r := await _send(HTTPClient.METHOD_PATCH, "/v1/scenes/" + scene_id.uri_encode(), body)
	return {"ok": true, "scene": r.body} if r.ok else r

## DELETE /v1/scenes/{id}: ends the scene; each mind's memory of it is checkpointed for the scene's player.
func end_scene(scene_id: String) -> Dictionary:
	var r := await _send(HTTPClient.METHOD_DELETE, "/v1/scenes/" + scene_id.uri_encode(), null)
	return {"ok": true, "memory_checkpoints": r.body.memoryCheckpoints} if r.ok else r

## One JSON call with the client's policy: the Server Key, the timeout, one retry after Retry-After on 429.
## Resolves to {ok: true, status, body} or {ok: false, code, status, error, body}.
func _send(method: int, path: String, body: Variant) -> Dictionary:
	if base_url.is_empty() or _key.is_empty():
		return _fail(CONFIG_ERROR)
	for attempt in 2:
		var http := HTTPRequest.new()
		http.timeout = timeout_seconds
		add_child(http)
		var headers := PackedStringArray(["Content-Type: application/json", "Authorization: Bearer " + _key])
		var err := http.request(base_url + path, headers, method, "" if body == null else JSON.stringify(body))
		if err != OK:
			http.queue_free()
			return _fail(TRANSPORT_ERROR)
		var res: Array = await http.request_completed # [result, status, headers, body]
		http.queue_free()
		if res[0] != HTTPRequest.RESULT_SUCCESS:
			return _fail(TRANSPORT_ERROR)
		var status: int = res[1]
		var parsed = JSON.parse_string(res[3].get_string_from_utf8())
		if status >= 200 and status < 300:
			return {"ok": true, "status": status, "body": parsed}
		if status == 429 and attempt == 0:
			var wait := _retry_after(res[2], parsed)
			if wait >= 0 and wait <= max_retry_delay_seconds:
				await get_tree().create_timer(wait).timeout
				continue
		return _fail(code_for_status(status), status, parsed)
	return _fail(RATE_LIMITED, 429)

func _retry_after(headers: PackedStringArray, body: Variant) -> int:
	for h in headers:
		if h.to_lower().begins_with("retry-after:"):
			return int(h.split(":", true, 1)[1].strip_edges())
	if body is Dictionary and body.has("retryAfter"):
		return int(body.retryAfter)
	return -1

## The same reply streamed (SSE): emits `token` for each piece of text, resolves like interact().
func interact_stream(request: Dictionary) -> Dictionary:
	if base_url.is_empty() or _key.is_empty():
		return _fail(CONFIG_ERROR)
	var url := base_url.split("://", true, 1)
	var tls := url[0] == "https"
	var host_port := url[1].split("/", true, 1)[0].split(":")
	var port := int(host_port[1]) if host_port.size() > 1 else (443 if tls else 80)
	var client := HTTPClient.new()
	if client.connect_to_host(host_port[0], port, TLSOptions.client() if tls else null) != OK:
		return _fail(TRANSPORT_ERROR)
	var started := Time.get_ticks_msec()
	while client.get_status() in [HTTPClient.STATUS_CONNECTING, HTTPClient.STATUS_RESOLVING]:
		client.poll()
		await get_tree().process_frame
		if Time.get_ticks_msec() - started > timeout_seconds * 1000: return _fail(TRANSPORT_ERROR)
	if client.get_status() != HTTPClient.STATUS_CONNECTED:
		return _fail(TRANSPORT_ERROR)
	var headers := PackedStringArray(["Content-Type: application/json", "Accept: text/event-stream", "Authorization: Bearer " + _key])
	client.request(HTTPClient.METHOD_POST, "/v1/npc/interact", headers, JSON.stringify(request))
	while client.get_status() == HTTPClient.STATUS_REQUESTING:
		client.poll()
		await get_tree().process_frame
	if not client.has_response():
		return _fail(TRANSPORT_ERROR)
	var status := client.get_response_code()
	var buffer := ""
	var error_body := PackedByteArray()
	while client.get_status() == HTTPClient.STATUS_BODY:
		client.poll()
		var chunk := client.read_response_body_chunk()
		if chunk.is_empty():
			await get_tree().process_frame
			if Time.get_ticks_msec() - started > timeout_seconds * 1000: return _fail(TRANSPORT_ERROR)
			continue
		if status != 200:
			error_body.append_array(chunk)
			continue
		buffer += chunk.get_string_from_utf8()
		while buffer.find("\n\n") >= 0:
			var at := buffer.find("\n\n")
			var block := buffer.substr(0, at)
			buffer = buffer.substr(at + 2)
			var event := "message"
			var data := ""
			for line in block.split("\n"):
				if line.begins_with("event:"): event = line.substr(6).strip_edges()
				elif line.begins_with("data:"): data += line.substr(5).strip_edges()
			var parsed = JSON.parse_string(data)
			if event == "token": token.emit(parsed.text)
			elif event == "emotion": emotion.emit(parsed)
			elif event == "action": action.emit(parsed)
			elif event == "done": return {"ok": true, "reply": parsed}
			elif event == "error": return _fail(SERVICE_UNAVAILABLE if parsed.get("error") == "Generation failed" else REQUEST_FAILED, 0, parsed)
	if status != 200:
		return _fail(code_for_status(status), status, JSON.parse_string(error_body.get_string_from_utf8()))
	return _fail(TRANSPORT_ERROR)
