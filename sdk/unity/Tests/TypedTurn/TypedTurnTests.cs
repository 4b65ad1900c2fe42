using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Lorehold;

/// <summary>
/// The typed-turn sample (Samples~/TypedTurn/TypedTurnDriver.cs) against a live Lorehold server whose mind has
/// behaviour (started by test/sdk/unityClient.test.ts):
///   mono TypedTurnTests.exe BASE_URL SERVER_KEY MIND_ID
/// Prints "PASS name" / "FAIL name: why" per test and "REPORTED id status" per action result it sent; the exit
/// code is the number of failures. The server's model has random weights: what is checked holds of any turn.
/// </summary>
public static class TypedTurnTests
{
    static int failures;

    public static int Main(string[] args)
    {
        if (args.Length != 3) { Console.Error.WriteLine("usage: TypedTurnTests.exe BASE_URL SERVER_KEY MIND_ID"); return 2; }
        Run("request and reply JSON carry the typed-turn fields", Json);
        Run("a streamed turn: the emotion played once, each action run, results kept for the next line", () => Turns(args[0], args[1], args[2]));
        return failures;
    }

    static void Run(string name, Func<Task> f)
    {
        try { f().GetAwaiter().GetResult(); Console.WriteLine("PASS " + name); }
        catch (Exception e) { failures++; Console.WriteLine("FAIL " + name + ": " + e.GetType().Name + ": " + e.Message); }
    }

    static void Check(bool ok, string what) { if (!ok) throw new Exception(what); }

    static Task Json()
    {
        var body = new InteractRequest
        {
            Text = "Hi", EntityMindId = "m", PlayerId = "p",
            AvailableActions = new List<string> { "pour" },
            ActionResults = new List<ActionResult> { new ActionResult("a1-1", "completed"), new ActionResult("a1-2", "aborted", "hands full") },
        }.ToJson();
        Check(body == "{\"text\":\"Hi\",\"entityMindId\":\"m\",\"playerId\":\"p\",\"availableActions\":[\"pour\"],\"actionResults\":[{\"id\":\"a1-1\",\"status\":\"completed\"},{\"id\":\"a1-2\",\"status\":\"aborted\",\"detail\":\"hands full\"}]}", "request JSON: " + body);
        var r = InteractResponse.Parse("{\"success\":true,\"response\":\"Here.\",\"character\":\"Elena\",\"metadata\":{\"behaviour\":{\"emotion\":{\"name\":\"happy\",\"intensity\":0.7},\"actions\":[{\"id\":\"a2-1\",\"name\":\"pour\",\"params\":{\"drink\":\"ale\"}}],\"trust\":{\"value\":3,\"delta\":1,\"label\":\"friendly\"}}}}");
        Check(r.Behaviour.Emotion.Name == "happy" && r.Behaviour.Emotion.Intensity == 0.7, "emotion");
        Check(r.Behaviour.Actions.Count == 1 && r.Behaviour.Actions[0].Id == "a2-1" && (string)r.Behaviour.Actions[0].Params["drink"] == "ale", "actions");
        Check(r.Behaviour.Trust.Value == 3 && r.Behaviour.Trust.Delta == 1 && r.Behaviour.Trust.Label == "friendly", "trust");
        Check(InteractResponse.Parse("{\"success\":true,\"response\":\"x\",\"character\":\"y\",\"metadata\":{}}").Behaviour == null, "no behaviour: null");
        return Task.FromResult(0);
    }

    static async Task Turns(string baseUrl, string key, string mindId)
    {
        // a typed turn on shared CI cores can take tens of seconds
        var client = new LoreholdClient(new LoreholdClientOptions { BaseUrl = baseUrl, ApiKey = key, TimeoutMs = 240000 });
        var driver = new TypedTurnDriver(client, mindId, "unity-typed")
            .On("pour", a => (string)a.Params["drink"] == "ale" ? ActionOutcome.Completed() : ActionOutcome.Failed("the cider barrel is empty"))
            .On("wave", a => ActionOutcome.Aborted("hands full"));
        var played = new List<BehaviourEmotion>();
        driver.PlayEmotion = e => played.Add(e);
        var tokens = 0;
        driver.OnToken = t => tokens++;
        List<ActionResult> sent = null;
        // Random weights choose "none" or an action each turn (the server samples this mind at temperature 1.5): 12
        // turns leave a small chance of never seeing one even if an action came only one turn in three (below 1e-2).
        var lines = new[] { "A drink, please!", "Pour me an ale.", "Wave if you can hear me!", "Cider, please.", "Another round!", "Hello there." };
        for (var i = 0; i < 12 && sent == null; i++)
        {
            played.Clear();
            var r = await driver.SayAsync(lines[i % lines.Length]);
            Check(r.Behaviour != null, "the reply has behaviour");
            Check(played.Count == 1 && played[0].Name == r.Behaviour.Emotion.Name && played[0].Intensity == r.Behaviour.Emotion.Intensity, "the emotion event is the reply's emotion, once");
            Check(driver.Pending.Count == r.Behaviour.Actions.Count, "one result per action");
            for (var k = 0; k < r.Behaviour.Actions.Count; k++)
            {
                var a = r.Behaviour.Actions[k];
                Check(a.Name == "pour" || a.Name == "wave", "only the offered actions: " + a.Name);
                Check(driver.Pending[k].Id == a.Id, "results in the actions' order");
                Check(driver.Pending[k].Status == (a.Name == "wave" ? "aborted" : (string)a.Params["drink"] == "ale" ? "completed" : "failed"), "the handler's result");
            }
            if (r.Behaviour.Actions.Count > 0) sent = new List<ActionResult>(driver.Pending);
        }
        Check(sent != null, "no action in 12 turns");
        var next = await driver.SayAsync("Did that work?");
        foreach (var w in next.Warnings) Check(!w.Contains("actionResults"), "the server knew every reported id: " + w);
        foreach (var s in sent) Console.WriteLine("REPORTED " + s.Id + " " + s.Status);
        Check(tokens > 0, "tokens streamed");
    }
}
