using System.Collections.Generic;

namespace Lorehold
{
    /// <summary>
    /// A typed turn (a mind with behaviour): the reply's emotion, the actions the NPC takes and the player's trust,
    /// from the reply's metadata.behaviour. Null on InteractResponse when the mind has no behaviour.
    /// </summary>
    public class TurnBehaviour
    {
        public BehaviourEmotion Emotion;
        /// <summary>In the order the NPC takes them; empty when it takes none.</summary>
        public List<BehaviourAction> Actions = new List<BehaviourAction>();
        /// <summary>Null when the mind keeps no trust.</summary>
        public TrustView Trust;

        internal static TurnBehaviour FromJson(Dictionary<string, object> o)
        {
            var b = new TurnBehaviour();
            object v;
            if (o.TryGetValue("emotion", out v) && v is Dictionary<string, object>) b.Emotion = BehaviourEmotion.FromJson((Dictionary<string, object>)v);
            if (o.TryGetValue("actions", out v) && v is List<object>)
                foreach (var a in (List<object>)v) if (a is Dictionary<string, object>) b.Actions.Add(BehaviourAction.FromJson((Dictionary<string, object>)a));
            if (o.TryGetValue("trust", out v) && v is Dictionary<string, object>)
            {
                var t = (Dictionary<string, object>)v;
                b.Trust = new TrustView { Value = Num(t, "value"), Delta = Num(t, "delta"), Label = t.ContainsKey("label") ? t["label"] as string : null };
            }
            if (b.Emotion == null) throw new System.FormatException("the behaviour has no emotion");
            return b;
        }

        internal static double Num(Dictionary<string, object> o, string key)
        {
            object v;
            return o.TryGetValue(key, out v) && v is double ? (double)v : 0;
        }
    }

    /// <summary>One of the mind's emotions, with an intensity from 0 to 1 (SSE `emotion` event).</summary>
    public class BehaviourEmotion
    {
        public string Name;
        public double Intensity;

        internal static BehaviourEmotion FromJson(Dictionary<string, object> o)
        {
            return new BehaviourEmotion { Name = o.ContainsKey("name") ? o["name"] as string : null, Intensity = TurnBehaviour.Num(o, "intensity") };
        }
    }

    /// <summary>An action the NPC takes (SSE `action` event): run it, then report its result with the next turn.</summary>
    public class BehaviourAction
    {
        /// <summary>Unique in the conversation: the id an ActionResult refers to.</summary>
        public string Id;
        public string Name;
        /// <summary>As the action's schema types them: string, double (integers too), bool.</summary>
        public Dictionary<string, object> Params = new Dictionary<string, object>();

        internal static BehaviourAction FromJson(Dictionary<string, object> o)
        {
            var a = new BehaviourAction { Id = o.ContainsKey("id") ? o["id"] as string : null, Name = o.ContainsKey("name") ? o["name"] as string : null };
            object p;
            if (o.TryGetValue("params", out p) && p is Dictionary<string, object>) a.Params = (Dictionary<string, object>)p;
            return a;
        }
    }

    /// <summary>The player's trust after this turn: the stored value, this turn's change and its label.</summary>
    public class TrustView
    {
        public double Value;
        public double Delta;
        public string Label;
    }

    /// <summary>What the game did with an earlier action, sent with the next interact (`actionResults`).</summary>
    public class ActionResult
    {
        public string Id;
        /// <summary>"completed", "failed" or "aborted".</summary>
        public string Status;
        /// <summary>Optional, for the NPC: why it failed or was aborted.</summary>
        public string Detail;

        public ActionResult(string id, string status, string detail = null) { Id = id; Status = status; Detail = detail; }

        internal Dictionary<string, object> ToJson()
        {
            var o = new Dictionary<string, object> { { "id", Id }, { "status", Status } };
            if (Detail != null) o["detail"] = Detail;
            return o;
        }
    }
}
