using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Lorehold;

/// <summary>
/// The C# client against a live Lorehold server (started by test/sdk/unityClient.test.ts):
///   mono ClientTests.exe BASE_URL SERVER_KEY EDITOR_KEY MIND_ID
/// Prints one "PASS name" / "FAIL name: why" line per test; the exit code is the number of failures.
/// The server limits each player to 1 interaction a minute, so every test uses its own player id.
/// </summary>
public static class ClientTests
{
    static string baseUrl, serverKey, editorKey, mindId;
    static int failures;

    public static int Main(string[] args)
    {
        if (args.Length != 4) { Console.Error.WriteLine("usage: ClientTests.exe BASE_URL SERVER_KEY EDITOR_KEY MIND_ID"); return 2; }
        baseUrl = args[0]; serverKey = args[1]; editorKey = args[2]; mindId = args[3];
        var tests = new List<KeyValuePair<string, Func<Task>>>
        {
            T("interact: a reply with the character's name", Interact),
            T("stream: tokens, then the reply whose text is the tokens", Stream),
            T("400 -> VALIDATION_ERROR with the spec's message", Validation),
            T("401 -> AUTH_FAILED", Auth),
            T("403 -> REQUEST_FAILED (an Editor Key on interact)", Forbidden),
            T("404 -> REQUEST_FAILED (unknown mind), also on a stream", NotFound),
            T("429 -> RATE_LIMITED with RetryAfter when the wait is too long", RateLimited),
            T("429 -> waits Retry-After, then succeeds", RetryThenSucceed),
            T("503 -> SERVICE_UNAVAILABLE", Unavailable),
            T("no server -> TRANSPORT_ERROR", NoServer),
            T("timeout -> TRANSPORT_ERROR (timeout)", TimeoutTest),
            T("cancellation -> TRANSPORT_ERROR (cancelled)", Cancel),
            T("bad setup -> CONFIG_ERROR", Config),
            T("the key is never in messages or ToString", NoKeyLeak),
            T("minds list with an Editor Key", Minds),
            T("MiniJson round trip", Json),
        };
        foreach (var t in tests)
        {
            try
            {
                t.Value().GetAwaiter().GetResult();
                Console.WriteLine("PASS " + t.Key);
            }
            catch (Exception e)
            {
                failures++;
                Console.WriteLine("FAIL " + t.Key + ": " + e.GetType().Name + ": " + e.Message);
            }
        }
        return failures;
    }

    static KeyValuePair<string, Func<Task>> T(string name, Func<Task> f) { return new KeyValuePair<string, Func<Task>>(name, f); }

    static LoreholdClient Client(string key = null, Action<LoreholdClientOptions> tweak = null)
    {
        var o = new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = key ?? serverKey };
        if (tweak != null) tweak(o);
        return new LoreholdClient(o);
    }

    static InteractRequest Ask(string player, string mind = null)
    {
        return new InteractRequest
        {
            Text = "Tell me about the town.",
            EntityMindId = mind ?? mindId,
            PlayerId = player,
            Context = new Dictionary<string, object> { { "timeOfDay", "night" }, { "nearbyCharacters", new List<string> { "a guard" } } },
            RetrieveMemory = false,
        };
    }

    static void Check(bool ok, string what) { if (!ok) throw new Exception(what); }
    static void Eq<TV>(TV expected, TV actual, string what) { if (!EqualityComparer<TV>.Default.Equals(expected, actual)) throw new Exception(what + ": expected " + expected + ", got " + actual); }

    static async Task<LoreholdException> Fails(Func<Task> f)
    {
        try { await f(); }
        catch (LoreholdException e) { return e; }
        throw new Exception("expected a LoreholdException");
    }

    static async Task Interact()
    {
        using (var c = Client())
        {
            var r = await c.InteractAsync(Ask("cs-interact"));
            Check(r.Success, "success");
            Eq("Garrick", r.Character, "character");
            Check(r.Response != null, "response");
            Check(r.CreditsUsed.HasValue && r.CreditsUsed.Value > 0, "creditsUsed > 0");
        }
    }

    static async Task Stream()
    {
        using (var c = Client())
        {
            var tokens = new StringBuilder();
            var count = 0;
            var r = await c.InteractStreamAsync(Ask("cs-stream"), t => { tokens.Append(t); count++; });
            Check(count > 0, "at least one token");
            Eq("Garrick", r.Character, "character");
            Eq(tokens.ToString().Trim(), r.Response, "reply = tokens");
        }
    }

    static async Task Validation()
    {
        using (var c = Client())
        {
            var req = Ask("cs-400");
            req.Text = "";
            var e = await Fails(() => c.InteractAsync(req));
            Eq(LoreholdErrorCode.ValidationError, e.Code, "code");
            Eq((int?)400, e.Status, "status");
            Eq("Missing or empty text", e.ServerError, "error");
        }
    }

    static async Task Auth()
    {
        using (var c = Client("sk_server_nope"))
        {
            var e = await Fails(() => c.InteractAsync(Ask("cs-401")));
            Eq(LoreholdErrorCode.AuthFailed, e.Code, "code");
            Eq("Invalid API key", e.ServerError, "error");
        }
    }

    static async Task Forbidden()
    {
        using (var c = Client(editorKey))
        {
            var e = await Fails(() => c.InteractAsync(Ask("cs-403")));
            Eq(LoreholdErrorCode.RequestFailed, e.Code, "code");
            Eq((int?)403, e.Status, "status");
        }
    }

    static async Task NotFound()
    {
        using (var c = Client())
        {
            var e = await Fails(() => c.InteractAsync(Ask("cs-404", "mind_nope")));
            Eq(LoreholdErrorCode.RequestFailed, e.Code, "code");
            Eq("Entity Mind not found", e.ServerError, "error");
            var s = await Fails(() => c.InteractStreamAsync(Ask("cs-404s", "mind_nope"), t => { throw new Exception("no token expected"); }));
            Eq((int?)404, s.Status, "stream status");
        }
    }

    static async Task RateLimited()
    {
        using (var c = Client(null, o => o.MaxRetryDelayMs = 5000))
        {
            await c.InteractAsync(Ask("cs-429"));
            var e = await Fails(() => c.InteractAsync(Ask("cs-429")));
            Eq(LoreholdErrorCode.RateLimited, e.Code, "code");
            Eq((int?)429, e.Status, "status");
            Eq("Rate limit exceeded", e.ServerError, "error");
            Check(e.RetryAfter.HasValue && e.RetryAfter.Value > 50 && e.RetryAfter.Value <= 60, "RetryAfter about a minute, got " + e.RetryAfter);
        }
    }

    /// <summary>Answers 429 with Retry-After: 2 the first time, then passes requests on to the real server.</summary>
    sealed class FirstTimeLimited : DelegatingHandler
    {
        public int Calls;
        public FirstTimeLimited() : base(new HttpClientHandler()) { }
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            if (Interlocked.Increment(ref Calls) > 1) return base.SendAsync(request, cancellationToken);
            var res = new HttpResponseMessage((HttpStatusCode)429) { Content = new StringContent("{\"error\":\"Rate limit exceeded\",\"retryAfter\":2}", Encoding.UTF8, "application/json") };
            res.Headers.Add("Retry-After", "2");
            return Task.FromResult(res);
        }
    }

    static async Task RetryThenSucceed()
    {
        var handler = new FirstTimeLimited();
        var waits = new List<TimeSpan>();
        using (var c = Client(null, o => { o.Handler = handler; o.Sleep = (t, ct) => { waits.Add(t); return Task.Delay(10, ct); }; }))
        {
            var r = await c.InteractAsync(Ask("cs-retry"));
            Eq("Garrick", r.Character, "character");
            Eq(2, handler.Calls, "requests sent");
            Eq(1, waits.Count, "waits");
            Eq(TimeSpan.FromSeconds(2), waits[0], "waited Retry-After");
        }
        handler.Dispose();
    }

    sealed class Answers : HttpMessageHandler
    {
        readonly int status; readonly string body;
        public Answers(int status, string body) { this.status = status; this.body = body; }
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            return Task.FromResult(new HttpResponseMessage((HttpStatusCode)status) { Content = new StringContent(body, Encoding.UTF8, "application/json") });
        }
    }

    static async Task Unavailable()
    {
        using (var c = Client(null, o => o.Handler = new Answers(503, "{\"error\":\"Generation failed\"}")))
        {
            var e = await Fails(() => c.InteractAsync(Ask("cs-503")));
            Eq(LoreholdErrorCode.ServiceUnavailable, e.Code, "code");
            Eq("Generation failed", e.ServerError, "error");
        }
        using (var c = Client(null, o => o.Handler = new Answers(402, "{\"error\":\"Insufficient credits\",\"credits\":0}")))
        {
            Eq(LoreholdErrorCode.InsufficientCredits, (await Fails(() => c.InteractAsync(Ask("cs-402")))).Code, "402 code");
        }
    }

    static async Task NoServer()
    {
        using (var c = new LoreholdClient(new LoreholdClientOptions { BaseUrl = "http://127.0.0.1:9", ApiKey = serverKey }))
        {
            var e = await Fails(() => c.InteractAsync(Ask("cs-none")));
            Eq(LoreholdErrorCode.TransportError, e.Code, "code");
            Eq((int?)null, e.Status, "no status");
        }
    }

    static async Task TimeoutTest()
    {
        using (var c = Client(null, o => o.TimeoutMs = 1))
        {
            var e = await Fails(() => c.InteractAsync(Ask("cs-timeout")));
            Eq(LoreholdErrorCode.TransportError, e.Code, "code");
            Eq("timeout", e.Aborted, "aborted");
        }
    }

    static async Task Cancel()
    {
        using (var c = Client())
        using (var cts = new CancellationTokenSource())
        {
            var tokens = 0;
            // cancelled from inside the stream, at its first token
            var e = await Fails(() => c.InteractStreamAsync(Ask("cs-cancel"), t => { tokens++; cts.Cancel(); }, cts.Token));
            Eq(1, tokens, "tokens before the cancel took effect");
            Eq(LoreholdErrorCode.TransportError, e.Code, "code");
            Eq("cancelled", e.Aborted, "aborted");
        }
    }

    static Task Config()
    {
        var rows = new List<LoreholdClientOptions>
        {
            null,
            new LoreholdClientOptions { BaseUrl = "", ApiKey = "k" },
            new LoreholdClientOptions { BaseUrl = "localhost:8080", ApiKey = "k" },
            new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = " " },
            new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = "k", TimeoutMs = -1 },
        };
        foreach (var o in rows)
        {
            try { new LoreholdClient(o).Dispose(); throw new Exception("expected CONFIG_ERROR"); }
            catch (LoreholdException e) { Eq(LoreholdErrorCode.ConfigError, e.Code, "code"); }
        }
        return Task.FromResult(0);
    }

    static async Task NoKeyLeak()
    {
        var key = "sk_server_" + "s3cret0000000000000000000000000000000000";
        using (var c = new LoreholdClient(new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = key }))
        using (var down = new LoreholdClient(new LoreholdClientOptions { BaseUrl = "http://127.0.0.1:9", ApiKey = key }))
        {
            var a = await Fails(() => c.InteractAsync(Ask("cs-leak")));
            var b = await Fails(() => down.InteractAsync(Ask("cs-leak")));
            foreach (var text in new[] { a.ToString(), a.Body ?? "", b.ToString(), c.ToString() })
                Check(!text.Contains("s3cret"), "the key leaked into: " + text);
        }
    }

    static async Task Minds()
    {
        using (var c = Client(editorKey))
        {
            var minds = await c.GetMindsAsync();
            var names = new List<string>();
            foreach (var m in minds) names.Add(m.EntityName);
            names.Sort(StringComparer.Ordinal);
            Eq("Elena,Garrick", string.Join(",", names), "names");
        }
    }

    static Task Json()
    {
        var v = MiniJson.Parse("{\"a\":[1,2.5,-3e2],\"b\":\"q\\\"\\u00e9\\n\",\"c\":null,\"d\":true,\"e\":{}}") as Dictionary<string, object>;
        Eq(-300.0, (double)((List<object>)v["a"])[2], "number");
        Eq("q\"é\n", (string)v["b"], "string");
        Check(v["c"] == null && (bool)v["d"], "null/true");
        Eq("{\"a\":[1,2.5,-300],\"b\":\"q\\\"é\\n\",\"d\":true,\"e\":{}}", MiniJson.Serialize(v), "serialize (nulls left out)");
        foreach (var bad in new[] { "{", "[1,]", "{\"a\" 1}", "tru", "\"x", "1 2" })
        {
            try { MiniJson.Parse(bad); throw new Exception("parsed bad JSON: " + bad); }
            catch (FormatException) { }
        }
        return Task.FromResult(0);
    }
}
