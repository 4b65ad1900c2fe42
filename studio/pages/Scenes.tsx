import { useEffect, useRef, useState } from "preact/hooks";
import { admin, HttpError, rawFetch, readSse, v1 } from "../api.ts";
import { ErrorBox, Field, fmtNum, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";

interface Line {
  /** the player's line (mindId null) or a mind's */
  mindId: string | null;
  character: string;
  text: string;
  streaming: boolean;
  why?: { reason: string; weight?: number; chance?: number; relevance?: number };
  metadata?: any;
}

const newPlayer = () => `studio-player-${Math.random().toString(36).slice(2, 8)}`;
const WHY: Record<string, string> = { requested: "asked for", addressed: "addressed by name", talkativeness: "drawn by talkativeness and relevance" };

/** A scene playground: pick minds, talk to them or let them talk; per line who spoke, why them, and its cost. */
export function Scenes({ projectId }: SectionProps) {
  const minds = useAsync(() => admin<{ minds: any[] }>("GET", `/projects/${projectId}/minds`), [projectId]);
  const withKnowledge = (minds.data?.minds ?? []).filter((m) => m.knowledgeTags?.length || m.knowledge?.length);
  const [picked, setPicked] = useState<Record<string, number>>({});
  const [where, setWhere] = useState("");
  const [playerId, setPlayerId] = useState(newPlayer);
  const [sceneId, setSceneId] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [text, setText] = useState("");
  const [maxLines, setMaxLines] = useState(2);
  const act = useAction();
  const endRef = useRef<HTMLDivElement>(null);
  useEffect(() => endRef.current?.scrollIntoView?.({ block: "end" }), [lines]);

  const start = () =>
    act.run(async () => {
      const body: any = { minds: Object.entries(picked).map(([mindId, talkativeness]) => ({ mindId, talkativeness })), playerId };
      if (where.trim()) body.location = where.trim();
      setSceneId((await v1<{ sceneId: string }>(projectId, "POST", "/scenes", body)).sceneId);
      setLines([]);
    });
  const end = () =>
    act.run(async () => {
      if (sceneId) await v1(projectId, "DELETE", `/scenes/${sceneId}`);
      setSceneId(null);
    });
  const turn = (e: Event, ambient: boolean) => {
    e.preventDefault();
    if (!sceneId) return;
    const body: any = { maxLines };
    if (!ambient && text.trim()) body.text = text;
    if (body.text) setLines((ls) => [...ls, { mindId: null, character: playerId, text: body.text, streaming: false }]);
    setText("");
    return act.run(async () => {
      const res = await rawFetch("POST", `/studio/api/projects/${encodeURIComponent(projectId)}/v1/scenes/${sceneId}/turn`, JSON.stringify(body), {
        "content-type": "application/json",
        accept: "text/event-stream",
      });
      if (!res.ok) {
        let b: any = null;
        try {
          b = await res.json();
        } catch {}
        throw new HttpError(res.status, b);
      }
      const patchLast = (p: Partial<Line>) => setLines((ls) => ls.map((l, i) => (i === ls.length - 1 ? { ...l, ...p } : l)));
      let said = "";
      await readSse(res, (event, data) => {
        if (event === "speaker") {
          said = "";
          setLines((ls) => [...ls, { mindId: data.mindId, character: data.character, text: "", streaming: true, why: data.why }]);
        } else if (event === "token") patchLast({ text: (said += data.text) });
        else if (event === "line") patchLast({ text: data.response, streaming: false, metadata: data.metadata });
        else if (event === "error") throw new HttpError(503, data);
      });
      setLines((ls) => ls.map((l) => (l.streaming ? { ...l, streaming: false, text: `${l.text} (cut off)` } : l)));
    });
  };

  return (
    <section aria-labelledby="scenes-title" class="playground">
      <h1 id="scenes-title">Scenes</h1>
      <div class="cols">
        <form class="card controls" aria-label="Scene settings" onSubmit={(e) => e.preventDefault()}>
          <fieldset disabled={!!sceneId}>
            <legend>Minds at the table (talkativeness)</legend>
            {withKnowledge.map((m) => (
              <div class="row">
                <label class="inline grow">
                  <input
                    type="checkbox"
                    checked={m.id in picked}
                    onChange={(e) => {
                      const next = { ...picked };
                      if ((e.target as HTMLInputElement).checked) next[m.id] = 0.5;
                      else delete next[m.id];
                      setPicked(next);
                    }}
                  />{" "}
                  {m.entityName}
                </label>
                {m.id in picked && (
                  <input type="range" min={0} max={1} step={0.1} aria-label={`${m.entityName}'s talkativeness`} value={picked[m.id]} onInput={(e) => setPicked({ ...picked, [m.id]: Number((e.target as HTMLInputElement).value) })} />
                )}
              </div>
            ))}
            <Field label="Location">
              <input maxLength={200} value={where} onInput={(e) => setWhere((e.target as HTMLInputElement).value)} />
            </Field>
            <Field label="Player id">
              <input value={playerId} maxLength={255} onInput={(e) => setPlayerId((e.target as HTMLInputElement).value)} />
            </Field>
          </fieldset>
          {sceneId ? (
            <button type="button" onClick={end} disabled={act.busy}>
              End the scene
            </button>
          ) : (
            <button type="button" class="primary" onClick={start} disabled={act.busy || !Object.keys(picked).length}>
              Start a scene
            </button>
          )}
          <Field label="Lines per turn (1–6)">
            <input type="number" min={1} max={6} value={maxLines} onInput={(e) => setMaxLines(Math.max(1, Math.min(6, Number((e.target as HTMLInputElement).value) || 1)))} />
          </Field>
        </form>
        <div class="grow chat">
          {lines.map((l, i) => (
            <div class="turn">
              <div class="bubbles">
                <p class={`bubble ${l.mindId ? "npc" : "player"}`} data-testid={`scene-line-${i}`}>
                  <span class="who">{l.character}</span>
                  {l.text || (l.streaming ? "…" : "")}
                  {l.streaming && <span class="cursor">▍</span>}
                </p>
              </div>
              {l.mindId && l.why && (
                <aside class="trace card" aria-label={`Why line ${i + 1}`}>
                  <p>
                    <strong>Why {l.character}:</strong> {WHY[l.why.reason] ?? l.why.reason}
                    {l.why.weight !== undefined && ` · share ${fmtNum(l.why.weight, 2)} · chain chance ${fmtNum(l.why.chance ?? 1, 2)} · relevance ${fmtNum(l.why.relevance ?? 0, 2)}`}
                  </p>
                  {l.metadata?.timing && (
                    <p class="muted">
                      {l.metadata.timing.promptTokens} prompt tokens ({l.metadata.timing.evaluatedPromptTokens} evaluated) · first token {fmtNum(l.metadata.timing.timeToFirstTokenMs ?? 0, 0)} ms · {fmtNum(l.metadata.creditsUsed ?? 0, 6)} credits
                    </p>
                  )}
                </aside>
              )}
            </div>
          ))}
          <div ref={endRef} />
          <form class="row say" onSubmit={(e) => turn(e, false)} aria-label="Say something to the table">
            <input class="grow" aria-label="Your line" maxLength={2000} placeholder={sceneId ? "Say something to the table" : "Start a scene first"} value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
            <button class="primary" type="submit" disabled={!sceneId || !text.trim()}>
              Say
            </button>
            <button type="button" disabled={!sceneId} onClick={(e) => turn(e, true)}>
              Let them talk
            </button>
          </form>
          <ErrorBox error={act.error ?? minds.error} />
        </div>
      </div>
    </section>
  );
}
