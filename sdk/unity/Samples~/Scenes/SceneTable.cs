// SAMPLE — SceneDriver wired to a Unity scene: NPCs at a table, the player's line from an input field, each line
// shown over its speaker. Untested in the Unity editor (there is no Unity in CI); SceneDriver.cs is what CI runs.
using System.Collections.Generic;
using System.Linq;
using Lorehold;
using UnityEngine;
using UnityEngine.UI;

public class SceneTable : MonoBehaviour
{
    [Tooltip("The server's root, e.g. http://127.0.0.1:8080. Prototyping only: keep the Server Key on your backend.")]
    public string baseUrl = "http://127.0.0.1:8080";
    public string serverKey = "";
    public string playerId = "player-1";
    public string location = "Rusty Tankard";
    [Tooltip("Each NPC at the table: its Entity Mind id and the text above its head.")]
    public List<Seat> seats = new List<Seat>();
    public InputField playerLine;

    [System.Serializable]
    public class Seat
    {
        public string mindId;
        public Text subtitle;
    }

    LoreholdClient client;
    SceneDriver driver;

    async void OnEnable()
    {
        client = new LoreholdClient(new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = serverKey });
        driver = new SceneDriver(client);
        driver.OnLine = line =>
        {
            var seat = seats.FirstOrDefault(s => s.mindId == line.MindId);
            if (seat != null && seat.subtitle != null) seat.subtitle.text = line.Response;
        };
        await driver.StartAsync(seats.Select(s => s.mindId), location, playerId);
    }

    /// <summary>Hook to the input field's submit: the player speaks, up to three NPCs answer.</summary>
    public async void Say()
    {
        try { await driver.SayAsync(playerLine.text, 3); }
        catch (LoreholdException e) { Debug.LogWarning(e.Code + " " + e.Message); }
        playerLine.text = "";
    }

    async void OnDisable()
    {
        if (driver != null) await driver.EndAsync();
        client?.Dispose();
    }
}
