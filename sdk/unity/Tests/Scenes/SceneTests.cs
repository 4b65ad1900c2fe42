using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Lorehold;

/// <summary>
/// The scenes sample (Samples~/Scenes/SceneDriver.cs) against a live Lorehold server (started by
/// test/sdk/unityScenes.test.ts, with a per-player limit of 4 interactions a minute and a manual clock):
///   mono SceneTests.exe BASE_URL SERVER_KEY MIND_A MIND_B
/// Prints "PASS name" / "FAIL name: why" per test; the exit code is the number of failures. The server's model has
/// random weights: what is checked holds of any reply (who speaks, in what order, how many lines), never the words.
/// </summary>
public static class SceneTests
{
    static int failures;

    public static int Main(string[] args)
    {
        if (args.Length != 4) { Console.Error.WriteLine("usage: SceneTests.exe BASE_URL SERVER_KEY MIND_A MIND_B"); return 2; }
        Run("request and reply JSON of a scene", Json);
        Run("start a scene, the player speaks, the NPCs talk, one leaves, the scene ends", () => Table(args[0], args[1], args[2], args[3]));
        Run("a player over the rate limit gets RATE_LIMITED with Retry-After", () => Limited(args[0], args[1], args[2], args[3]));
        return failures;
    }

    static void Run(string name, Func<Task> f)
    {
        try { f().GetAwaiter().GetResult(); Console.WriteLine("PASS " + name); }
        catch (Exception e) { failures++; Console.WriteLine("FAIL " + name + ": " + e.GetType().Name + ": " + e.Message); }
    }

    static void Check(bool ok, string what) { if (!ok) throw new Exception(what); }

    static LoreholdClient Client(string baseUrl, string key, int retries = 2)
    {
        // a line of the tiny model on shared CI cores can take seconds
        return new LoreholdClient(new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = key, TimeoutMs = 240000, MaxRetries = retries });
    }

    static Task Json()
    {
        var create = new SceneCreateRequest { Location = "Rusty Tankard", PlayerId = "p" };
        create.Minds.Add("a");
        create.Minds.Add("b");
        create.Talkativeness["b"] = 0.9;
        Check(create.ToJson() == "{\"minds\":[\"a\",{\"mindId\":\"b\",\"talkativeness\":0.9}],\"location\":\"Rusty Tankard\",\"playerId\":\"p\"}", "create JSON: " + create.ToJson());
        Check(new SceneTurnRequest { Text = "Hi", MaxLines = 3 }.ToJson() == "{\"text\":\"Hi\",\"maxLines\":3}", "turn JSON: " + new SceneTurnRequest { Text = "Hi", MaxLines = 3 }.ToJson());
        Check(new SceneTurnRequest().ToJson() == "{}", "an ambient turn sends no text");
        var r = SceneTurnResponse.Parse("{\"success\":true,\"sceneId\":\"scene_1\",\"lines\":[{\"mindId\":\"a\",\"character\":\"Garrick\",\"response\":\"Aye.\",\"metadata\":{\"creditsUsed\":0.002,\"why\":{\"reason\":\"addressed\"}}}],\"metadata\":{\"stopped\":{\"status\":429,\"error\":\"Rate limit exceeded\",\"retryAfter\":12}}}");
        Check(r.SceneId == "scene_1" && r.Lines.Count == 1 && r.Lines[0].Character == "Garrick" && r.Lines[0].Why == "addressed" && r.Lines[0].CreditsUsed == 0.002, "lines");
        Check(r.StoppedStatus == 429 && r.StoppedError == "Rate limit exceeded" && !r.Cancelled, "stopped");
        return Task.FromResult(0);
    }

    static async Task Table(string baseUrl, string key, string a, string b)
    {
        using (var client = Client(baseUrl, key))
        {
            var driver = new SceneDriver(client);
            var heard = new List<SceneLine>();
            driver.OnLine = l => heard.Add(l);
            await driver.StartAsync(new[] { a, b }, "Rusty Tankard", "unity-scene");
            Check(driver.SceneId != null && driver.SceneId.StartsWith("scene_"), "a scene id");
            var first = await driver.SayAsync("Good evening, both of you!", 2);
            Check(first.SceneId == driver.SceneId, "the turn is the scene's");
            Check(first.Lines.Count >= 1 && first.Lines.Count <= 2, "one or two lines: " + first.Lines.Count);
            foreach (var l in first.Lines) Check((l.MindId == a || l.MindId == b) && l.Response != null && l.Why != null, "a line from a mind at the table, with why");
            for (var i = 1; i < first.Lines.Count; i++) Check(first.Lines[i].MindId != first.Lines[i - 1].MindId, "never the same mind twice in a row");
            Check(heard.Count == first.Lines.Count && heard[0] == first.Lines[0], "OnLine gets each line in order");
            var ambient = await driver.SayAsync(null, 1);
            Check(ambient.Lines.Count == 1, "the NPCs talk among themselves");
            await driver.LeaveAsync(a);
            var alone = await driver.SayAsync("Where did your friend go?", 1);
            Check(alone.Lines.Count == 1 && alone.Lines[0].MindId == b, "only the mind still at the table speaks");
            var id = driver.SceneId;
            var checkpoints = await driver.EndAsync();
            Check(checkpoints >= 0 && driver.SceneId == null, "ended");
            try
            {
                await client.SceneTurnAsync(id, new SceneTurnRequest { Text = "Hello?" });
                throw new Exception("a turn on an ended scene succeeded");
            }
            catch (LoreholdException e) { Check(e.Status == 404 && e.ServerError == "Scene not found", "404 Scene not found: " + e.Status + " " + e.ServerError); }
        }
    }

    static async Task Limited(string baseUrl, string key, string a, string b)
    {
        using (var client = Client(baseUrl, key, 0))
        {
            var driver = new SceneDriver(client);
            await driver.StartAsync(new[] { a, b }, null, "unity-limited");
            for (var i = 0; i < 4; i++) Check((await driver.SayAsync("Another round!", 1)).Lines.Count == 1, "a line within the limit");
            try
            {
                await driver.SayAsync("One more?", 1);
                throw new Exception("a fifth line within a minute was not limited");
            }
            catch (LoreholdException e)
            {
                Check(e.Code == LoreholdErrorCode.RateLimited && e.Status == 429 && e.ServerError == "Rate limit exceeded", "RATE_LIMITED: " + e.Code + " " + e.Status);
                Check(e.RetryAfter.HasValue && e.RetryAfter.Value >= 1, "Retry-After");
            }
            await driver.EndAsync();
        }
    }
}
