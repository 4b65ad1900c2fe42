// SAMPLE — not compiled or run in Unity's editor by Lorehold's CI (only sdk/unity/Runtime is, with Mono).
// A thin MonoBehaviour on UnityWebRequest, for projects that prefer Unity's own networking (WebGL has no
// HttpClient). For everything else, use Lorehold.LoreholdClient from Runtime/ (async/await, streaming).
//
// Keep the Server Key on your game backend: this sample talks to Lorehold directly only for prototyping.
using System.Collections;
using System.Collections.Generic;
using System.Text;
using Lorehold;
using UnityEngine;
using UnityEngine.Networking;

public class LoreholdNpc : MonoBehaviour
{
    public string baseUrl = "http://127.0.0.1:8080";
    public string serverKey = ""; // prototype only: never ship a key in a build
    public string entityMindId = "mind_…";
    public string playerId = "player-1";

    public void Ask(string text)
    {
        StartCoroutine(Interact(text, reply => Debug.Log(reply.Character + ": " + reply.Response), (code, message) => Debug.LogWarning(code + ": " + message)));
    }

    /// <summary>POST /v1/npc/interact with the spec's SDK codes; one retry after Retry-After on 429.</summary>
    public IEnumerator Interact(string text, System.Action<InteractResponse> onReply, System.Action<string, string> onError)
    {
        var body = new InteractRequest { Text = text, EntityMindId = entityMindId, PlayerId = playerId }.ToJson();
        for (var attempt = 0; attempt < 2; attempt++)
        {
            using (var req = new UnityWebRequest(baseUrl.TrimEnd('/') + "/v1/npc/interact", "POST"))
            {
                req.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(body));
                req.downloadHandler = new DownloadHandlerBuffer();
                req.SetRequestHeader("Content-Type", "application/json");
                req.SetRequestHeader("Authorization", "Bearer " + serverKey);
                req.timeout = 60;
                yield return req.SendWebRequest();
                if (req.result == UnityWebRequest.Result.ConnectionError) { onError(LoreholdErrorCode.TransportError, req.error); yield break; }
                var status = (int)req.responseCode;
                var json = req.downloadHandler.text;
                if (status >= 200 && status < 300) { onReply(InteractResponse.Parse(json)); yield break; }
                if (status == 429 && attempt == 0)
                {
                    int seconds;
                    if (int.TryParse(req.GetResponseHeader("Retry-After"), out seconds) && seconds <= 10) { yield return new WaitForSeconds(seconds); continue; }
                }
                onError(LoreholdErrorCode.ForStatus(status), json);
                yield break;
            }
        }
    }
}
