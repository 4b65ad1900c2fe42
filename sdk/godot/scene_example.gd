# SAMPLE — a scene in Godot 4: several NPCs at one table. Start it with the minds present, let the player speak
# (or the NPCs talk among themselves), show each line over its speaker, end it when the player walks away.
# Not run by Lorehold's CI (no Godot there); the Unity sample (sdk/unity/Samples~/Scenes) makes the same calls
# and is run against a live server.
#
# Each scene line counts against the player's rate limit like an interaction: see docs/scenes.md.
extends Node

## mind id → the Label above that NPC's head
@export var seats: Dictionary = {"mind_garrick": NodePath("Garrick/Subtitle"), "mind_mara": NodePath("Mara/Subtitle")}
@export var player_id := "player-1"
@export var location := "Rusty Tankard"
@onready var lorehold: LoreholdClient = $LoreholdClient

var _scene_id := ""

func _ready() -> void:
	var r := await lorehold.create_scene(seats.keys(), {"location": location, "playerId": player_id})
	if not r.ok:
		push_warning(r.code + " " + str(r.error))
		return
	_scene_id = r.scene_id

## The player's line ("" lets the NPCs talk among themselves); up to three NPCs answer, in order.
func say(text: String) -> void:
	if _scene_id == "": return
	var r := await lorehold.scene_turn(_scene_id, text, 3)
	if not r.ok:
		# RATE_LIMITED: the player spoke too often (the client already waited once for Retry-After).
		push_warning(r.code + " " + str(r.error))
		return
	for line in r.lines:
		_show(line.mindId, line.character + ": " + line.response)
	if r.metadata.has("stopped"):
		push_warning("the turn stopped early: " + str(r.metadata.stopped))

## An NPC gets up and leaves the table (or a new one sits down: join).
func leave(mind_id: String) -> void:
	if _scene_id != "": await lorehold.update_scene(_scene_id, [], [mind_id])

func _exit_tree() -> void:
	# The player walked away: each NPC remembers the scene (memories are the player's).
	if _scene_id != "":
		lorehold.end_scene(_scene_id)
		_scene_id = ""

func _show(mind_id: String, text: String) -> void:
	if seats.has(mind_id):
		var label := get_node_or_null(seats[mind_id]) as Label
		if label: label.text = text
