using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Lorehold
{
    public class LoreholdClientOptions
    {
        /// <summary>The server's root, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted).</summary>
        public string BaseUrl;
        /// <summary>A Server Key (sk_server_…) for Interact; an Editor Key for GetMindsAsync. Keep it on your backend.</summary>
        public string ApiKey;
        /// <summary>Per attempt, in milliseconds; for a streamed reply the whole stream. Default 60 000.</summary>
        public int TimeoutMs = 60000;
        /// <summary>How many 429s are retried after their Retry-After. Default 2.</summary>
        public int MaxRetries = 2;
        /// <summary>A Retry-After longer than this (ms) is not waited for: RATE_LIMITED at once. Default 10 000.</summary>
        public int MaxRetryDelayMs = 10000;
        /// <summary>Another HTTP handler (a proxy, a test double); the client then does not dispose it.</summary>
        public HttpMessageHandler Handler;
        /// <summary>How to wait before a retry (default Task.Delay); tests may record the waits instead.</summary>
        public Func<TimeSpan, CancellationToken, Task> Sleep;
    }

    /// <summary>
    /// A client of a Lorehold server on HttpClient: Interact, streamed Interact (SSE), the spec's SDK codes
    /// as LoreholdException.Code, a bounded Retry-After policy on 429, timeouts and cancellation.
    /// The key is only ever sent as the Authorization header; it is not in messages or ToString().
    /// </summary>
    public sealed partial class LoreholdClient : IDisposable
    {
        readonly HttpClient http;
        readonly string baseUrl;
        readonly string apiKey;
        readonly LoreholdClientOptions options;

        public LoreholdClient(LoreholdClientOptions options)
        {
            if (options == null) throw new LoreholdException(LoreholdErrorCode.ConfigError, "options are required");
            if (string.IsNullOrWhiteSpace(options.BaseUrl)) throw new LoreholdException(LoreholdErrorCode.ConfigError, "BaseUrl is required");
            Uri uri;
            if (!Uri.TryCreate(options.BaseUrl, UriKind.Absolute, out uri) || (uri.Scheme != "http" && uri.Scheme != "https"))
                throw new LoreholdException(LoreholdErrorCode.ConfigError, "BaseUrl must be an http(s) URL");
            if (string.IsNullOrWhiteSpace(options.ApiKey)) throw new LoreholdException(LoreholdErrorCode.ConfigError, "ApiKey is required");
            if (options.TimeoutMs < 0 || options.MaxRetries < 0 || options.MaxRetryDelayMs < 0)
                throw new LoreholdException(LoreholdErrorCode.ConfigError, "TimeoutMs, MaxRetries and MaxRetryDelayMs must be ≥ 0");
            this.options = options;
            var b = uri.ToString().TrimEnd('/');
            if (b.EndsWith("/v1", StringComparison.Ordinal)) b = b.Substring(0, b.Length - 3);
            baseUrl = b;
            apiKey = options.ApiKey.Trim();
            http = options.Handler != null ? new HttpClient(options.Handler, false) : new HttpClient();
            http.Timeout = Timeout.InfiniteTimeSpan; // our own timeout covers the whole stream
        }

        public string BaseUrl { get { return baseUrl; } }

        public override string ToString() { return "LoreholdClient(" + baseUrl + ", key: [redacted])"; }

        public void Dispose() { http.Dispose(); }

        /// <summary>POST /v1/npc/interact: the NPC's reply.</summary>
        public async Task<InteractResponse> InteractAsync(InteractRequest request, CancellationToken cancel = default(CancellationToken))
        {
            using (var call = new Call(this, cancel))
            {
                var res = await SendAsync(call, HttpMethod.Post, "/npc/interact", request.ToJson(), "application/json").ConfigureAwait(false);
                using (res)
                {
                    string text;
                    try { text = await res.Content.ReadAsStringAsync().ConfigureAwait(false); }
                    catch (Exception e) { throw call.Transport(e); }
                    try { return InteractResponse.FromJson(MiniJson.Parse(text)); }
                    catch (FormatException e) { throw new LoreholdException(LoreholdErrorCode.RequestFailed, "HTTP " + (int)res.StatusCode + ": the reply is not the expected JSON (" + e.Message + ")", (int)res.StatusCode, inner: e); }
                }
            }
        }

        /// <summary>
        /// The same reply streamed as Server-Sent Events: onToken gets each piece of text as the model writes it;
        /// the task ends with the final reply (whose Response is the tokens joined). Errors before the first
        /// token throw like InteractAsync's; a failure mid-stream throws from here too.
        /// </summary>
        public Task<InteractResponse> InteractStreamAsync(InteractRequest request, Action<string> onToken, CancellationToken cancel = default(CancellationToken))
        {
            return InteractStreamAsync(request, onToken, null, null, cancel);
        }

        /// <summary>
        /// A typed turn streamed: the tokens, then (a mind with behaviour) onEmotion once and onAction for each action,
        /// in the order the server sends them, before the task ends with the reply.
        /// </summary>
        public async Task<InteractResponse> InteractStreamAsync(InteractRequest request, Action<string> onToken, Action<BehaviourEmotion> onEmotion, Action<BehaviourAction> onAction, CancellationToken cancel = default(CancellationToken))
        {
            using (var call = new Call(this, cancel))
            {
                var res = await SendAsync(call, HttpMethod.Post, "/npc/interact", request.ToJson(), "text/event-stream").ConfigureAwait(false);
                using (res)
                {
                    var mediaType = res.Content.Headers.ContentType == null ? "" : res.Content.Headers.ContentType.MediaType;
                    try
                    {
                        if (mediaType != "text/event-stream")
                            return InteractResponse.FromJson(MiniJson.Parse(await res.Content.ReadAsStringAsync().ConfigureAwait(false)));
                        // a read blocked on the socket ends when the call is cancelled or times out
                        using (call.Token.Register(() => res.Dispose()))
                        using (var stream = await res.Content.ReadAsStreamAsync().ConfigureAwait(false))
                        using (var reader = new StreamReader(stream, new UTF8Encoding(false)))
                        {
                            string ev = "message";
                            var data = new StringBuilder();
                            while (true)
                            {
                                call.Token.ThrowIfCancellationRequested();
                                var line = await reader.ReadLineAsync().ConfigureAwait(false);
                                if (line == null) break;
                                if (line.Length == 0)
                                {
                                    if (data.Length > 0)
                                    {
                                        var parsed = MiniJson.Parse(data.ToString()) as Dictionary<string, object>;
                                        if (ev == "token" && onToken != null && parsed != null && parsed.ContainsKey("text")) onToken(parsed["text"] as string ?? "");
                                        else if (ev == "emotion" && onEmotion != null && parsed != null) onEmotion(BehaviourEmotion.FromJson(parsed));
                                        else if (ev == "action" && onAction != null && parsed != null) onAction(BehaviourAction.FromJson(parsed));
                                        else if (ev == "done") return InteractResponse.FromJson(parsed);
                                        else if (ev == "error") throw StreamError(parsed);
                                    }
                                    ev = "message";
                                    data.Clear();
                                    continue;
                                }
                                if (line.StartsWith(":", StringComparison.Ordinal)) continue;
                                var colon = line.IndexOf(':');
                                var field = colon < 0 ? line : line.Substring(0, colon);
                                var value = colon < 0 ? "" : line.Substring(colon + 1);
                                if (value.StartsWith(" ", StringComparison.Ordinal)) value = value.Substring(1);
                                if (field == "event") ev = value;
                                else if (field == "data") { if (data.Length > 0) data.Append('\n'); data.Append(value); }
                            }
                        }
                    }
                    catch (LoreholdException) { throw; }
                    catch (Exception e) { throw call.Transport(e); }
                    throw new LoreholdException(LoreholdErrorCode.TransportError, "the stream ended before the reply");
                }
            }
        }

        /// <summary>GET /v1/lore/minds (Editor Key): the minds a game can talk to.</summary>
        public async Task<List<MindSummary>> GetMindsAsync(CancellationToken cancel = default(CancellationToken))
        {
            using (var call = new Call(this, cancel))
            {
                var res = await SendAsync(call, HttpMethod.Get, "/lore/minds", null, "application/json").ConfigureAwait(false);
                using (res)
                {
                    string text;
                    try { text = await res.Content.ReadAsStringAsync().ConfigureAwait(false); }
                    catch (Exception e) { throw call.Transport(e); }
                    var list = new List<MindSummary>();
                    var root = MiniJson.Parse(text) as Dictionary<string, object>;
                    object minds;
                    if (root == null || !root.TryGetValue("minds", out minds) || !(minds is List<object>))
                        throw new LoreholdException(LoreholdErrorCode.RequestFailed, "the minds list is not the expected JSON", (int)res.StatusCode);
                    foreach (var item in (List<object>)minds)
                    {
                        var m = item as Dictionary<string, object>;
                        if (m == null) continue;
                        var s = new MindSummary { Id = m["id"] as string, EntityName = m["entityName"] as string };
                        object tags;
                        if (m.TryGetValue("knowledgeTags", out tags) && tags is List<object>)
                            foreach (var t in (List<object>)tags) if (t is string) s.KnowledgeTags.Add((string)t);
                        list.Add(s);
                    }
                    return list;
                }
            }
        }

        /// <summary>Sends with the bounded Retry-After policy; returns a 2xx response (the caller disposes it).</summary>
        async Task<HttpResponseMessage> SendAsync(Call call, HttpMethod method, string path, string jsonBody, string accept)
        {
            for (var attempt = 0; ; attempt++)
            {
                var req = new HttpRequestMessage(method, baseUrl + "/v1" + path);
                req.Headers.Authorization = new AuthenticationHeaderValue("Bearer", apiKey);
                req.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue(accept));
                if (jsonBody != null) req.Content = new StringContent(jsonBody, Encoding.UTF8, "application/json");
                HttpResponseMessage res;
                try
                {
                    res = await http.SendAsync(req, HttpCompletionOption.ResponseHeadersRead, call.Token).ConfigureAwait(false);
                }
                catch (Exception e) { throw call.Transport(e); }
                finally { req.Dispose(); }
                if (res.IsSuccessStatusCode) return res;
                string body = null;
                try { body = await res.Content.ReadAsStringAsync().ConfigureAwait(false); }
                catch (Exception) { body = null; }
                var status = (int)res.StatusCode;
                var serverError = ErrorOf(body);
                if (status == 429)
                {
                    var after = RetryAfterSeconds(res, body);
                    res.Dispose();
                    var waitMs = (after ?? 1) * 1000L;
                    if (attempt < options.MaxRetries && waitMs <= options.MaxRetryDelayMs)
                    {
                        try { await (options.Sleep ?? DefaultSleep)(TimeSpan.FromMilliseconds(waitMs), call.Token).ConfigureAwait(false); }
                        catch (Exception e) { throw call.Transport(e); }
                        continue;
                    }
                    throw new LoreholdException(LoreholdErrorCode.RateLimited, "HTTP 429: " + (serverError ?? "rate limited"), 429, serverError, after, body);
                }
                res.Dispose();
                throw new LoreholdException(LoreholdErrorCode.ForStatus(status), "HTTP " + status + (serverError != null ? ": " + serverError : ""), status, serverError, null, body);
            }
        }

        static Task DefaultSleep(TimeSpan t, CancellationToken c) { return Task.Delay(t, c); }

        static string ErrorOf(string body)
        {
            if (string.IsNullOrEmpty(body)) return null;
            try
            {
                var o = MiniJson.Parse(body) as Dictionary<string, object>;
                object e;
                return o != null && o.TryGetValue("error", out e) ? e as string : null;
            }
            catch (FormatException) { return null; }
        }

        static LoreholdException StreamError(Dictionary<string, object> body)
        {
            object e = null;
            if (body != null) body.TryGetValue("error", out e);
            var serverError = e as string ?? "stream error";
            var code = serverError == "Generation failed" ? LoreholdErrorCode.ServiceUnavailable : LoreholdErrorCode.RequestFailed;
            return new LoreholdException(code, "stream: " + serverError, null, serverError, null, MiniJson.Serialize(body));
        }

        /// <summary>Retry-After in seconds: the header (seconds or a date), else the body's retryAfter.</summary>
        public static int? RetryAfterSeconds(HttpResponseMessage res, string body)
        {
            var h = res.Headers.RetryAfter;
            if (h != null && h.Delta.HasValue) return (int)Math.Ceiling(h.Delta.Value.TotalSeconds);
            if (h != null && h.Date.HasValue) return Math.Max(0, (int)Math.Ceiling((h.Date.Value - DateTimeOffset.UtcNow).TotalSeconds));
            try
            {
                var o = MiniJson.Parse(body ?? "") as Dictionary<string, object>;
                object v;
                if (o != null && o.TryGetValue("retryAfter", out v) && v is double) return (int)Math.Ceiling((double)v);
            }
            catch (FormatException) { }
            return null;
        }

        /// <summary>One call's cancellation: the caller's token and the client's timeout together.</summary>
        sealed class Call : IDisposable
        {
            readonly CancellationToken caller;
            readonly CancellationTokenSource cts;
            readonly CancellationTokenSource timeout;
            public Call(LoreholdClient c, CancellationToken caller)
            {
                this.caller = caller;
                timeout = new CancellationTokenSource();
                if (c.options.TimeoutMs > 0) timeout.CancelAfter(c.options.TimeoutMs);
                cts = CancellationTokenSource.CreateLinkedTokenSource(caller, timeout.Token);
            }
            public CancellationToken Token { get { return cts.Token; } }
            public LoreholdException Transport(Exception e)
            {
                var le = e as LoreholdException;
                if (le != null) return le;
                if (caller.IsCancellationRequested) return new LoreholdException(LoreholdErrorCode.TransportError, "cancelled", aborted: "cancelled", inner: e);
                if (timeout.IsCancellationRequested) return new LoreholdException(LoreholdErrorCode.TransportError, "timed out", aborted: "timeout", inner: e);
                return new LoreholdException(LoreholdErrorCode.TransportError, "network error: " + e.GetBaseException().Message, inner: e);
            }
            public void Dispose() { cts.Dispose(); timeout.Dispose(); }
        }
    }
}
