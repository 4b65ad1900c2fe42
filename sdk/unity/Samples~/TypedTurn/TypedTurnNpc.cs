// SAMPLE — not compiled or run in Unity's editor by Lorehold's CI (TypedTurnDriver.cs is, with Mono).
// The typed turn in a scene: the NPC's Animator plays a state per emotion ("emote_happy", …) at a speed that
// follows the intensity; "pour_drink" and "open_door" run in the scene and their results go with the next line.
//
// Keep the Server Key on your game backend: this sample talks to Lorehold directly only for prototyping.
using System.Threading.Tasks;
using Lorehold;
using UnityEngine;

public class TypedTurnNpc : MonoBehaviour
{
    public string baseUrl = "http://127.0.0.1:8080";
    public string serverKey = ""; // prototype only: never ship a key in a build
    public string entityMindId = "mind_…";
    public string playerId = "player-1";
    public Animator animator;
    public GameObject frontDoor;

    TypedTurnDriver driver;

    void Awake()
    {
        var client = new LoreholdClient(new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = serverKey });
        driver = new TypedTurnDriver(client, entityMindId, playerId)
            .On("pour_drink", a => a.Params.ContainsKey("drink") && (string)a.Params["drink"] == "ale" ? ActionOutcome.Completed() : ActionOutcome.Failed("the cider barrel is empty"))
            .On("open_door", a =>
            {
                if (frontDoor == null) return ActionOutcome.Aborted("no door here");
                frontDoor.SetActive(false);
                return ActionOutcome.Completed();
            });
        // Streamed events arrive off the main thread: hand them to it before touching the scene in a real game
        // (e.g. a queue drained in Update); kept direct here for brevity.
        driver.PlayEmotion = e =>
        {
            var state = "emote_" + e.Name;
            if (animator != null && animator.HasState(0, Animator.StringToHash(state)))
            {
                animator.speed = 0.5f + (float)e.Intensity;
                animator.Play(state);
            }
        };
        driver.OnToken = t => Debug.Log(t);
    }

    public async Task Say(string text)
    {
        try
        {
            var reply = await driver.SayAsync(text);
            if (reply.Behaviour != null && reply.Behaviour.Trust != null) Debug.Log("trust " + reply.Behaviour.Trust.Value + " (" + reply.Behaviour.Trust.Label + ")");
        }
        catch (LoreholdException e)
        {
            Debug.LogWarning(e.Code + ": " + e.Message);
        }
    }
}
