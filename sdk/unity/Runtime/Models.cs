using System.Collections.Generic;

namespace Lorehold
{
    /// <summary>POST /v1/npc/interact's body (interface spec). Unset fields are not sent.</summary>
    public class InteractRequest
    {
        public string Text;
        public string EntityMindId;
        public string PlayerId;
        /// <summary>location, timeOfDay, weather, npcMood, … (strings) and playerVisibleItems, nearbyCharacters, … (string lists).</summary>
        public Dictionary<string, object> Context;
        /// <summary>memory.retrieve: bring this player's long-term memories in.</summary>
        public bool? RetrieveMemory;
        public List<string> ActiveKnowledgeTags;
        public List<ChatMessage> ConversationHistory;
        /// <summary>A typed turn: the actions the game can run now (narrows the mind's list; never widens it).</summary>
        public List<string> AvailableActions;
        /// <summary>A typed turn: what became of the NPC's earlier actions (their ids from TurnBehaviour.Actions).</summary>
        public List<ActionResult> ActionResults;

        /// <summary>The JSON body the server expects.</summary>
        public string ToJson()
        {
            var body = new Dictionary<string, object>();
            body["text"] = Text;
            body["entityMindId"] = EntityMindId;
            body["playerId"] = PlayerId;
            if (Context != null) body["context"] = Context;
            if (RetrieveMemory.HasValue) body["memory"] = new Dictionary<string, object> { { "retrieve", RetrieveMemory.Value } };
            if (ActiveKnowledgeTags != null) body["activeKnowledgeTags"] = ActiveKnowledgeTags;
            if (ConversationHistory != null)
            {
                var history = new List<object>();
                foreach (var m in ConversationHistory) history.Add(new Dictionary<string, object> { { "role", m.Role }, { "content", m.Content } });
                body["conversationHistory"] = history;
            }
            if (AvailableActions != null) body["availableActions"] = AvailableActions;
            if (ActionResults != null)
            {
                var results = new List<object>();
                foreach (var r in ActionResults) results.Add(r.ToJson());
                body["actionResults"] = results;
            }
            return MiniJson.Serialize(body);
        }
    }

    public class ChatMessage
    {
        /// <summary>"user" or "assistant".</summary>
        public string Role;
        public string Content;
        public ChatMessage(string role, string content) { Role = role; Content = content; }
    }

    /// <summary>The interact reply.</summary>
    public class InteractResponse
    {
        public bool Success;
        public string Response;
        public string Character;
        public double? CreditsUsed;
        public bool MemoryCheckpoint;
        public List<string> Warnings = new List<string>();
        /// <summary>A typed turn's emotion, actions and trust; null when the mind has no behaviour.</summary>
        public TurnBehaviour Behaviour;

        /// <summary>A reply from its JSON text (FormatException when it is not one).</summary>
        public static InteractResponse Parse(string json) { return FromJson(MiniJson.Parse(json)); }

        internal static InteractResponse FromJson(object parsed)
        {
            var o = parsed as Dictionary<string, object>;
            if (o == null) throw new System.FormatException("the reply is not a JSON object");
            var r = new InteractResponse();
            r.Success = o.ContainsKey("success") && o["success"] is bool && (bool)o["success"];
            r.Response = o.ContainsKey("response") ? o["response"] as string : null;
            r.Character = o.ContainsKey("character") ? o["character"] as string : null;
            object meta;
            if (o.TryGetValue("metadata", out meta) && meta is Dictionary<string, object>)
            {
                var m = (Dictionary<string, object>)meta;
                object v;
                if (m.TryGetValue("creditsUsed", out v) && v is double) r.CreditsUsed = (double)v;
                if (m.TryGetValue("memoryCheckpoint", out v) && v is bool) r.MemoryCheckpoint = (bool)v;
                if (m.TryGetValue("warnings", out v) && v is List<object>)
                    foreach (var w in (List<object>)v) if (w is string) r.Warnings.Add((string)w);
                if (m.TryGetValue("behaviour", out v) && v is Dictionary<string, object>) r.Behaviour = TurnBehaviour.FromJson((Dictionary<string, object>)v);
            }
            if (r.Response == null || r.Character == null) throw new System.FormatException("the reply has no response or character");
            return r;
        }
    }

    /// <summary>An Entity Mind as GET /v1/lore/minds lists it (the fields a game needs).</summary>
    public class MindSummary
    {
        public string Id;
        public string EntityName;
        public List<string> KnowledgeTags = new List<string>();
    }
}
