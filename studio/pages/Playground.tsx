import { useEffect, useRef, useState } from "preact/hooks";
import { admin, HttpError, rawFetch, readSse } from "../api.ts";
import { ErrorBox, Field, fmtNum, TagPicker, useAction, useAsync } from "../components/ui.tsx";
import { rowsToState, StateRows, type StateRow } from "../components/conditions.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { draftKey } from "./Tests.tsx";
import { appendCase, turnAsTestCase } from "./turnAsTest.ts";
import { PendingResults, TurnBehaviour, useActionResults, type TurnBehaviourData } from "../components/behaviour/TurnBehaviour.tsx";

interface Turn {
  player: string;
  reply: string;
  streaming: boolean;
  preview: any;
  trace: any;
  error: unknown;
  behaviour?: TurnBehaviourData | null;
}

const CONTEXT_FIELDS = ["location", "timeOfDay", "weather", "atmosphere", "situation", "npcMood", "npcActivity", "playerReputation"] as const;
const newPlayer = () => `studio-player-${Math.random().toString(36).slice(2, 8)}`;

/** Talk to a mind: the reply streams token by token; beside each turn, the trace of why. */
export function Playground({ projectId }: SectionProps) {
  const minds = useAsync(() => admin<{ minds: any[] }>("GET", `/projects/${projectId}/minds`), [projectId]);
  const overview = useAsync(() => admin("GET", `/projects/${projectId}/overview`), [projectId]);
  const wanted = new URLSearchParams(location.hash.split("?")[1] ?? "").get("mind") ?? "";
  const [mindId, setMindId] = useState(wanted);
  const [playerId, setPlayerId] = useState(newPlayer);
  const [ctx, setCtx] = useState<Record<string, string>>({});
  // this request's state: laid over the player's stored state for the turn, never stored
  const [state, setState] = useState<StateRow[]>([]);
  const [restrict, setRestrict] = useState(false);
  const [active, setActive] = useState<string[]>([]);
  const [retrieve, setRetrieve] = useState(true);
  const [text, setText] = useState("");
  const [turns, setTurns] = useState<Turn[]>([]);
  const act = useAction();
  const actionResults = useActionResults();
  const endRef = useRef<HTMLDivElement>(null);
  const mind = minds.data?.minds.find((m) => m.id === mindId);
  // a remote generation pool answers as a loaded model does
  const modelLoaded = overview.data?.model.state === "loaded" || overview.data?.model.state === "remote";
  useEffect(() => {
    if (!mindId && minds.data?.minds.length) setMindId(minds.data.minds[0].id);
  }, [minds.data]);
  useEffect(() => endRef.current?.scrollIntoView?.({ block: "end" }), [turns]);

  const update = (i: number, patch: Partial<Turn>) => setTurns((ts) => ts.map((t, j) => (j === i ? { ...t, ...patch } : t)));
  const send = async (e: Event) => {
    e.preventDefault();
    if (!text.trim() || !mind) return;
    const context = Object.fromEntries(Object.entries(ctx).filter(([, v]) => v.trim()));
    const body: any = { text, entityMindId: mind.id, playerId, memory: { retrieve } };
    if (Object.keys(context).length) body.context = context;
    if (restrict) body.activeKnowledgeTags = active;
    const reported = actionResults.take();
    if (reported.length) body.actionResults = reported;
    const overrides = rowsToState(state);
    if (Object.keys(overrides).length) body.state = overrides;
    const i = turns.length;
    setTurns((ts) => [...ts, { player: text, reply: "", streaming: true, preview: null, trace: null, error: null }]);
    setText("");
    await act.run(async () => {
      // The preview first: what the model will see and why (nothing generated, nothing charged).
      try {
        update(i, { preview: await admin("POST", `/projects/${projectId}/interact-preview`, body) });
      } catch (err) {
        update(i, { error: err, streaming: false });
        return;
      }
      if (!modelLoaded) {
        update(i, { streaming: false, error: new Error("No chat model is loaded: this is the preview only (put a GGUF in the models folder and restart).") });
        return;
      }
      const res = await rawFetch("POST", `/admin/v1/projects/${projectId}/playground`, JSON.stringify(body), { "content-type": "application/json", accept: "text/event-stream" });
      if (!res.ok) {
        let b: any = null;
        try {
          b = await res.json();
        } catch {}
        update(i, { streaming: false, error: new HttpError(res.status, b) });
        return;
      }
      let reply = "";
      const typed: TurnBehaviourData = { emotion: { name: "", intensity: 0 }, actions: [] };
      await readSse(res, (event, data) => {
        if (event === "token") {
          reply += data.text;
          update(i, { reply });
        } else if (event === "emotion") update(i, { behaviour: { ...typed, emotion: (typed.emotion = data) } });
        else if (event === "action") update(i, { behaviour: { ...typed, actions: (typed.actions = [...typed.actions, data]) } });
        else if (event === "done") update(i, { reply: data.reply.response, trace: data.trace, streaming: false, behaviour: data.reply.metadata?.behaviour ?? null });
        else if (event === "error") update(i, { error: new HttpError(503, data), streaming: false });
      });
      update(i, { streaming: false });
    });
  };

  return (
    <section aria-labelledby="pg-title" class="playground">
      <h1 id="pg-title">Playground</h1>
      {overview.data && !modelLoaded && (
        <div class="card notice" data-testid="no-model">
          No chat model is loaded ({overview.data.model.error ?? overview.data.model.state}): the playground shows the preview trace — the prompt, the lore and why — but cannot generate replies.
          {Array.isArray(overview.data.modelAdvice) && overview.data.modelAdvice.length > 0 && (
            <>
              {" "}To give the NPCs a voice, do one of these, then restart the server:
              <ul>
                {overview.data.modelAdvice.map((line: string) => (
                  <li>
                    <code>{line}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <div class="cols">
        <form class="card controls" aria-label="Conversation settings" onSubmit={(e) => e.preventDefault()}>
          <Field label="Mind">
            <select value={mindId} onChange={(e) => (setMindId((e.target as HTMLSelectElement).value), setTurns([]))}>
              {minds.data?.minds.map((m) => (
                <option value={m.id}>{m.entityName}</option>
              ))}
            </select>
          </Field>
          <Field label="Player id">
            <div class="row">
              <input value={playerId} maxLength={255} onInput={(e) => setPlayerId((e.target as HTMLInputElement).value)} />
              <button type="button" onClick={() => (setPlayerId(newPlayer()), setTurns([]))}>
                New player
              </button>
            </div>
          </Field>
          <label class="inline">
            <input type="checkbox" checked={retrieve} onChange={(e) => setRetrieve((e.target as HTMLInputElement).checked)} /> Retrieve this player's memories
          </label>
          <label class="inline">
            <input type="checkbox" checked={restrict} onChange={(e) => setRestrict((e.target as HTMLInputElement).checked)} /> Restrict to active knowledge tags
          </label>
          {restrict && mind && <TagPicker label="Active knowledge tags" all={mind.knowledgeTags} value={active} onChange={setActive} />}
          <details>
            <summary>State (this request)</summary>
            <p class="muted">Laid over the player's stored state for each turn sent, never stored.</p>
            <StateRows label="Request state" rows={state} onChange={setState} />
          </details>
          <details>
            <summary>Scene context</summary>
            {CONTEXT_FIELDS.map((k) => (
              <Field label={k}>
                <input maxLength={200} value={ctx[k] ?? ""} onInput={(e) => setCtx({ ...ctx, [k]: (e.target as HTMLInputElement).value })} />
              </Field>
            ))}
          </details>
        </form>
        <div class="grow chat">
          {turns.map((t, i) => (
            <div class="turn">
              <div class="bubbles">
                <p class="bubble player">
                  <span class="who">{playerId}</span>
                  {t.player}
                </p>
                <p class="bubble npc" data-testid={`reply-${i}`} aria-live="polite">
                  <span class="who">{mind?.entityName}</span>
                  {t.reply || (t.streaming ? "…" : "")}
                  {t.streaming && <span class="cursor">▍</span>}
                </p>
                {t.behaviour && <TurnBehaviour b={t.behaviour} index={i} results={actionResults} />}
                <ErrorBox error={t.error} />
                {mind && t.reply && !t.streaming && (
                  <button
                    type="button"
                    class="link"
                    onClick={() => {
                      const asTurns = turns.slice(0, i + 1).map((x) => ({ player: x.player, reply: x.reply, lore: x.preview?.lore ?? [], prompt: (x.preview?.prompt ?? []).map((m: { content: string }) => m.content).join("\n") }));
                      localStorage.setItem(draftKey(projectId), appendCase(localStorage.getItem(draftKey(projectId)), turnAsTestCase(mind, asTurns)));
                      location.hash = `#/p/${projectId}/tests`;
                    }}
                  >
                    Save as a test
                  </button>
                )}
              </div>
              <Trace turn={t} index={i} />
            </div>
          ))}
          <div ref={endRef} />
          <PendingResults results={actionResults} />
          <form class="row say" onSubmit={send} aria-label="Say something">
            <input class="grow" aria-label="Your line" maxLength={2000} placeholder={mind ? `Say something to ${mind.entityName}` : "Create a mind first"} value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
            <button class="primary" type="submit" disabled={act.busy || !mind}>
              Send
            </button>
          </form>
          <ErrorBox error={act.error ?? minds.error} />
        </div>
      </div>
    </section>
  );
}

function Trace({ turn, index }: { turn: Turn; index: number }) {
  const p = turn.preview;
  const tr = turn.trace;
  if (!p) return null;
  return (
    <aside class="trace card" aria-label={`Trace of turn ${index + 1}`} data-testid={`trace-${index}`}>
      <h3>Why</h3>
      <p>
        <strong>Lore retrieved</strong> (visible tags: {p.visibleTags.join(", ") || "none"})
      </p>
      <ul>
        {p.lore.map((l: any) => (
          <li>
            {l.documentName} #{l.chunkIndex} · {l.turn === "shared" ? "shared by the mind's players" : l.score === null ? "earlier turn" : `score ${fmtNum(l.score, 3)}`} · {l.tags.join(", ")}
          </li>
        ))}
        {p.lore.length === 0 && <li class="muted">none</li>}
      </ul>
      <p>
        <strong>Memories used</strong>
      </p>
      <ul>
        {p.memories.map((m: any) => (
          <li>{typeof m === "string" ? m : (m.text ?? JSON.stringify(m))}</li>
        ))}
        {p.memories.length === 0 && <li class="muted">none</li>}
      </ul>
      {(p.conditions?.lines ?? []).length > 0 && (
        <>
          <strong>Conditional hints and restrictions</strong>
          <ul data-testid={`lines-${index}`}>
            {p.conditions.lines.map((l: any) => (
              <li>
                <span class={`verdict ${l.applies ? "in" : "out"}`}>{l.applies ? "applies" : "off"}</span> {l.kind}: {l.text} <span class="muted mono">when {l.when}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {p.warnings.length > 0 && (
        <ul class="warn">
          {p.warnings.map((w: string) => (
            <li>{w}</li>
          ))}
        </ul>
      )}
      {tr ? (
        <dl class="facts" data-testid={`stats-${index}`}>
          <dt>Prompt tokens</dt>
          <dd>
            {tr.promptTokens} ({tr.evaluatedPromptTokens} evaluated, {tr.reusedPromptTokens} reused from cache)
          </dd>
          <dt>Reply tokens</dt>
          <dd>{tr.completionTokens}</dd>
          <dt>First token</dt>
          <dd>{tr.timeToFirstTokenMs} ms</dd>
          <dt>Speed</dt>
          <dd>{tr.tokensPerSecond === null ? "—" : `${tr.tokensPerSecond} tokens/s`}</dd>
          <dt>Total</dt>
          <dd>{tr.totalMs} ms</dd>
          <dt>Credits used</dt>
          <dd data-testid={`credits-${index}`}>{fmtNum(tr.creditsUsed, 6)}</dd>
          {tr.guard && (
            <>
              <dt>Reply guard</dt>
              <dd data-testid={`guard-${index}`}>{guardSummary(tr.guard)}</dd>
            </>
          )}
          {tr.memoryCheckpoint && (
            <>
              <dt>Memory</dt>
              <dd>checkpoint: the session was summarised into memories</dd>
            </>
          )}
        </dl>
      ) : (
        <p class="muted">
          Estimated: {p.promptTokens} prompt tokens, up to {p.replyTokens} reply tokens, ≤ {fmtNum(p.estimatedCredits, 6)} credits
        </p>
      )}
      <details>
        <summary>The exact prompt</summary>
        {p.prompt.map((m: any) => (
          <pre>
            [{m.role}] {m.content}
          </pre>
        ))}
      </details>
    </aside>
  );
}

/** The reply guard's account in words: samples drawn, what each had, why the reply ended early. */
function guardSummary(g: { attempts: { attempt: number; problems: { kind: string; detail: string }[]; early: boolean }[]; chosen: number; stoppedBy: string | null }): string {
  const found = g.attempts.filter((a) => a.problems.length).map((a) => `sample ${a.attempt}: ${a.problems.map((p) => `${p.kind} (${p.detail})`).join(", ")}${a.early ? ", stopped at its opening" : ""}`);
  const samples = g.attempts.length === 1 ? "1 sample" : `${g.attempts.length} samples, sample ${g.chosen} kept`;
  const ended = g.stoppedBy && g.stoppedBy !== "fail" ? `; ended early: ${{ sentences: "sentence limit", loop: "it began repeating itself", cap: "token cap near", tail: "it began writing its behaviour into its words" }[g.stoppedBy] ?? g.stoppedBy}` : "";
  return `${samples}${found.length ? `; ${found.join("; ")}` : "; nothing found"}${ended}`;
}
