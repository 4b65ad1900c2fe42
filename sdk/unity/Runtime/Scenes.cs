using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Lorehold
{
    /// <summary>POST /v1/scenes' body: the minds present (with an optional talkativeness 0–1), where, and which player.</summary>
    public class SceneCreateRequest
    {
        public List<string> Minds = new List<string>();
        /// <summary>Per mind id: how readily it speaks up (0–1); a mind not listed gets the server's default.</summary>
        public Dictionary<string, double> Talkativeness = new Dictionary<string, double>();
        public string Location;
        /// <summary>The player present, if any: each mind's memory of the scene is this player's.</summary>
        public string PlayerId;
        /// <summary>The same fields as an interaction's context (timeOfDay, weather, …).</summary>
        public Dictionary<string, object> Context;

        public string ToJson()
        {
            var minds = new List<object>();
            foreach (var id in Minds)
            {
                double t;
                if (Talkativeness.TryGetValue(id, out t)) minds.Add(new Dictionary<string, object> { { "mindId", id }, { "talkativeness", t } });
                else minds.Add(id);
            }
            var body = new Dictionary<string, object> { { "minds", minds } };
            if (Location != null) body["location"] = Location;
            if (PlayerId != null) body["playerId"] = PlayerId;
            if (Context != null) body["context"] = Context;
            return MiniJson.Serialize(body);
        }
    }

    /// <summary>POST /v1/scenes/{id}/turn's body: the player's line (none: the minds talk among themselves), how many lines may answer (1–6), who must speak first.</summary>
    public class SceneTurnRequest
    {
        public string Text;
        public int? MaxLines;
        public string Speaker;

        public string ToJson()
        {
            var body = new Dictionary<string, object>();
            if (Text != null) body["text"] = Text;
            if (MaxLines.HasValue) body["maxLines"] = MaxLines.Value;
            if (Speaker != null) body["speaker"] = Speaker;
            return MiniJson.Serialize(body);
        }
    }

    /// <summary>One line said aloud in a scene, and why its speaker was chosen ("addressed", "requested", "talkativeness", …).</summary>
    public class SceneLine
    {
        public string MindId;
        public string Character;
        public string Response;
        public double? CreditsUsed;
        public string Why;
    }

    /// <summary>A scene turn's lines in order. Cancelled: a newer turn cut it short. Stopped: a later line failed (e.g. 429), the lines before it stand.</summary>
    public class SceneTurnResponse
    {
        public string SceneId;
        public List<SceneLine> Lines = new List<SceneLine>();
        public bool Cancelled;
        public int? StoppedStatus;
        public string StoppedError;

        public static SceneTurnResponse Parse(string json) { return FromJson(MiniJson.Parse(json)); }

        internal static SceneTurnResponse FromJson(object parsed)
        {
            var o = parsed as Dictionary<string, object>;
            object lines;
            if (o == null || !o.TryGetValue("lines", out lines) || !(lines is List<object>)) throw new FormatException("the scene turn is not the expected JSON");
            var r = new SceneTurnResponse { SceneId = o.ContainsKey("sceneId") ? o["sceneId"] as string : null };
            foreach (var item in (List<object>)lines)
            {
                var l = item as Dictionary<string, object>;
                if (l == null) continue;
                var line = new SceneLine { MindId = l["mindId"] as string, Character = l["character"] as string, Response = l["response"] as string };
                object meta;
                if (l.TryGetValue("metadata", out meta) && meta is Dictionary<string, object>)
                {
                    var m = (Dictionary<string, object>)meta;
                    object v;
                    if (m.TryGetValue("creditsUsed", out v) && v is double) line.CreditsUsed = (double)v;
                    if (m.TryGetValue("why", out v) && v is Dictionary<string, object>) line.Why = ((Dictionary<string, object>)v).ContainsKey("reason") ? ((Dictionary<string, object>)v)["reason"] as string : null;
                }
                if (line.MindId == null || line.Response == null) throw new FormatException("a scene line has no mindId or response");
                r.Lines.Add(line);
            }
            object md;
            if (o.TryGetValue("metadata", out md) && md is Dictionary<string, object>)
            {
                var m = (Dictionary<string, object>)md;
                object v;
                r.Cancelled = m.TryGetValue("cancelled", out v) && v is bool && (bool)v;
                if (m.TryGetValue("stopped", out v) && v is Dictionary<string, object>)
                {
                    var s = (Dictionary<string, object>)v;
                    object x;
                    if (s.TryGetValue("status", out x) && x is double) r.StoppedStatus = (int)(double)x;
                    if (s.TryGetValue("error", out x)) r.StoppedError = x as string;
                }
            }
            return r;
        }
    }

    public sealed partial class LoreholdClient
    {
        static readonly HttpMethod Patch = new HttpMethod("PATCH");

        /// <summary>POST /v1/scenes (Server Key): starts a scene; returns its id.</summary>
        public async Task<string> CreateSceneAsync(SceneCreateRequest request, CancellationToken cancel = default(CancellationToken))
        {
            var o = await JsonCallAsync(HttpMethod.Post, "/scenes", request.ToJson(), cancel).ConfigureAwait(false);
            object id;
            if (!o.TryGetValue("sceneId", out id) || !(id is string)) throw new LoreholdException(LoreholdErrorCode.RequestFailed, "the scene has no sceneId");
            return (string)id;
        }

        /// <summary>POST /v1/scenes/{id}/turn: the player's line (or none), then the lines that answer, in order.</summary>
        public async Task<SceneTurnResponse> SceneTurnAsync(string sceneId, SceneTurnRequest request, CancellationToken cancel = default(CancellationToken))
        {
            var o = await JsonCallAsync(HttpMethod.Post, "/scenes/" + Uri.EscapeDataString(sceneId) + "/turn", request.ToJson(), cancel).ConfigureAwait(false);
            try { return SceneTurnResponse.FromJson(o); }
            catch (FormatException e) { throw new LoreholdException(LoreholdErrorCode.RequestFailed, e.Message, inner: e); }
        }

        /// <summary>PATCH /v1/scenes/{id}: minds walk in (join) or out (leave).</summary>
        public Task JoinLeaveSceneAsync(string sceneId, IEnumerable<string> join, IEnumerable<string> leave, CancellationToken cancel = default(CancellationToken))
        {
            var body = new Dictionary<string, object>();
            if (join != null) body["join"] = new List<string>(join);
            if (leave != null) body["leave"] = new List<string>(leave);
            return JsonCallAsync(Patch, "/scenes/" + Uri.EscapeDataString(sceneId), MiniJson.Serialize(body), cancel);
        }

        /// <summary>DELETE /v1/scenes/{id}: ends the scene (each mind's memory of it is checkpointed for the player); returns how many were.</summary>
        public async Task<int> EndSceneAsync(string sceneId, CancellationToken cancel = default(CancellationToken))
        {
            var o = await JsonCallAsync(HttpMethod.Delete, "/scenes/" + Uri.EscapeDataString(sceneId), null, cancel).ConfigureAwait(false);
            object n;
            return o.TryGetValue("memoryCheckpoints", out n) && n is double ? (int)(double)n : 0;
        }

        async Task<Dictionary<string, object>> JsonCallAsync(HttpMethod method, string path, string body, CancellationToken cancel)
        {
            using (var call = new Call(this, cancel))
            {
                var res = await SendAsync(call, method, path, body, "application/json").ConfigureAwait(false);
                using (res)
                {
                    string text;
                    try { text = await res.Content.ReadAsStringAsync().ConfigureAwait(false); }
                    catch (Exception e) { throw call.Transport(e); }
                    Dictionary<string, object> o = null;
                    try { o = MiniJson.Parse(text) as Dictionary<string, object>; }
                    catch (FormatException) { o = null; }
                    if (o == null) throw new LoreholdException(LoreholdErrorCode.RequestFailed, "HTTP " + (int)res.StatusCode + ": the reply is not a JSON object", (int)res.StatusCode);
                    return o;
                }
            }
        }
    }
}
