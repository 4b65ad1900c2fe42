// SAMPLE — a scene with the C# client: several NPCs at one table. Start it with the minds present, let the player
// speak (or let the NPCs talk among themselves), show each line as its speaker's, end it when the player walks
// away. Plain C# (no UnityEngine): Lorehold's CI compiles it with Mono and drives it against a live server
// (sdk/unity/Tests/Scenes); SceneTable.cs wires it to a Unity scene.
//
// See docs/scenes.md for who speaks next, what each speaker knows, credits and rate limits.
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Lorehold;

public class SceneDriver
{
    readonly LoreholdClient client;
    string sceneId;

    /// <summary>Each line as it is said, in order (a subtitle over its speaker).</summary>
    public Action<SceneLine> OnLine = l => { };

    public SceneDriver(LoreholdClient client) { this.client = client; }

    /// <summary>The running scene's id (null before StartAsync and after EndAsync).</summary>
    public string SceneId { get { return sceneId; } }

    /// <summary>Starts the scene with the minds at the table; a player id makes it that player's conversation (memories, trust).</summary>
    public async Task StartAsync(IEnumerable<string> mindIds, string location, string playerId, CancellationToken cancel = default(CancellationToken))
    {
        var request = new SceneCreateRequest { Location = location, PlayerId = playerId };
        request.Minds.AddRange(mindIds);
        sceneId = await client.CreateSceneAsync(request, cancel).ConfigureAwait(false);
    }

    /// <summary>The player's line (null: the NPCs talk among themselves), then up to maxLines lines in reply.</summary>
    public async Task<SceneTurnResponse> SayAsync(string text, int maxLines, CancellationToken cancel = default(CancellationToken))
    {
        if (sceneId == null) throw new InvalidOperationException("StartAsync first");
        var turn = await client.SceneTurnAsync(sceneId, new SceneTurnRequest { Text = text, MaxLines = maxLines }, cancel).ConfigureAwait(false);
        foreach (var line in turn.Lines) OnLine(line);
        return turn;
    }

    /// <summary>A mind walks up to the table or leaves it.</summary>
    public Task JoinAsync(string mindId) { return client.JoinLeaveSceneAsync(sceneId, new[] { mindId }, null); }
    public Task LeaveAsync(string mindId) { return client.JoinLeaveSceneAsync(sceneId, null, new[] { mindId }); }

    /// <summary>Ends the scene: each mind remembers it (with a player present); returns how many memories were checkpointed.</summary>
    public async Task<int> EndAsync(CancellationToken cancel = default(CancellationToken))
    {
        if (sceneId == null) return 0;
        var id = sceneId;
        sceneId = null;
        return await client.EndSceneAsync(id, cancel).ConfigureAwait(false);
    }
}
