# SAMPLE — a typed turn in Godot 4: play an animation for the NPC's emotion, run its actions, and report what
# became of each one with the player's next line (`actionResults`). Not run by Lorehold's CI (no Godot there).
#
# The mind needs `behaviour` (emotions, actions, trust): see the README's "Typed turns".
extends Node

@export var mind_id := "mind_…"
@export var player_id := "player-1"
@onready var lorehold: LoreholdClient = $LoreholdClient
@onready var animator: AnimationPlayer = $NPC/AnimationPlayer

## results of this turn's actions, sent with the next line
var _pending_results: Array[Dictionary] = []

func _ready() -> void:
	lorehold.emotion.connect(_on_emotion)
	lorehold.action.connect(_on_action)

func say(text: String) -> void:
	var request := {"text": text, "entityMindId": mind_id, "playerId": player_id}
	if not _pending_results.is_empty():
		request["actionResults"] = _pending_results.duplicate()
		_pending_results.clear()
	var r := await lorehold.interact_stream(request)
	if not r.ok:
		push_warning(r.code + " " + str(r.error))
		return
	var trust = r.reply.metadata.get("behaviour", {}).get("trust")
	if trust: print("trust ", trust.value, " (", trust.label, ")")

## One animation per emotion the mind may show; intensity scales its speed.
func _on_emotion(e: Dictionary) -> void:
	var anim: String = "emote_" + e.name
	if animator.has_animation(anim):
		animator.play(anim, -1, 0.5 + float(e.intensity))

## Run the action in the game; the NPC hears whether it worked on the next turn.
func _on_action(a: Dictionary) -> void:
	var status := "failed"
	var detail := ""
	match a.name:
		"pour_drink":
			status = "completed" if $Bar.pour(a.params.drink) else "failed"
		"point_the_way":
			$NPC.look_at_place(a.params.place)
			status = "completed"
		_:
			status = "aborted"
			detail = "this scene cannot do " + a.name
	var result := {"id": a.id, "status": status}
	if detail != "": result["detail"] = detail
	_pending_results.append(result)
