// SAMPLE — a typed turn with the C# client: play an animation for the NPC's emotion, run its actions, and report
// what became of each one with the player's next line (`actionResults`). Plain C# (no UnityEngine): Lorehold's CI
// compiles it with Mono and drives it against a live server (sdk/unity/Tests/TypedTurn); TypedTurnNpc.cs wires it
// to a Unity scene.
//
// The mind needs `behaviour` (emotions, actions, trust): see docs/typed-turns.md.
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Lorehold;

public class TypedTurnDriver
{
    readonly LoreholdClient client;
    readonly string mindId;
    readonly string playerId;
    /// <summary>What the game can do, by action name: run it with its params, return its result (status, detail).</summary>
    readonly Dictionary<string, Func<BehaviourAction, ActionOutcome>> handlers = new Dictionary<string, Func<BehaviourAction, ActionOutcome>>();
    /// <summary>Results of this turn's actions, sent with the next line (then cleared).</summary>
    readonly List<ActionResult> pending = new List<ActionResult>();

    /// <summary>Plays the emotion (an animation whose speed follows the intensity, in a scene).</summary>
    public Action<BehaviourEmotion> PlayEmotion = e => { };
    /// <summary>Each piece of the reply as it streams (subtitles).</summary>
    public Action<string> OnToken = t => { };

    public TypedTurnDriver(LoreholdClient client, string mindId, string playerId)
    {
        this.client = client;
        this.mindId = mindId;
        this.playerId = playerId;
    }

    /// <summary>Registers what the game does for an action the mind may take.</summary>
    public TypedTurnDriver On(string actionName, Func<BehaviourAction, ActionOutcome> run)
    {
        handlers[actionName] = run;
        return this;
    }

    /// <summary>The results waiting to be reported with the next line.</summary>
    public IReadOnlyList<ActionResult> Pending { get { return pending; } }

    /// <summary>
    /// One turn: the line with the results of the last turn's actions, only the actions this scene can run offered
    /// (availableActions), the reply streamed; the emotion played and each action run as their events arrive.
    /// </summary>
    public async Task<InteractResponse> SayAsync(string text, CancellationToken cancel = default(CancellationToken))
    {
        var request = new InteractRequest
        {
            Text = text,
            EntityMindId = mindId,
            PlayerId = playerId,
            AvailableActions = new List<string>(handlers.Keys),
            ActionResults = pending.Count > 0 ? new List<ActionResult>(pending) : null,
        };
        var ran = new List<ActionResult>();
        var reply = await client.InteractStreamAsync(request, OnToken, PlayEmotion, a => ran.Add(Run(a)), cancel).ConfigureAwait(false);
        // reported once: the server keeps them with this turn, so the NPC knows from now on
        pending.Clear();
        pending.AddRange(ran);
        return reply;
    }

    ActionResult Run(BehaviourAction a)
    {
        Func<BehaviourAction, ActionOutcome> run;
        if (!handlers.TryGetValue(a.Name, out run)) return new ActionResult(a.Id, "aborted", "this scene cannot " + a.Name);
        try
        {
            var outcome = run(a);
            return new ActionResult(a.Id, outcome.Status, outcome.Detail);
        }
        catch (Exception e)
        {
            return new ActionResult(a.Id, "failed", e.Message);
        }
    }
}

/// <summary>What the game made of an action: "completed", "failed" or "aborted", and why (optional).</summary>
public struct ActionOutcome
{
    public string Status;
    public string Detail;
    public static ActionOutcome Completed() { return new ActionOutcome { Status = "completed" }; }
    public static ActionOutcome Failed(string why) { return new ActionOutcome { Status = "failed", Detail = why }; }
    public static ActionOutcome Aborted(string why) { return new ActionOutcome { Status = "aborted", Detail = why }; }
}
