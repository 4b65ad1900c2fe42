import { useEffect, useState } from "preact/hooks";
import { admin } from "../api.ts";
import { ErrorBox, useAction } from "../components/ui.tsx";
import { rowsToState, StateRows, type StateRow } from "../components/conditions.tsx";

interface Simulated {
  scope: { defaults: Record<string, unknown> };
  minds: {
    id: string;
    entityName: string;
    knowledge: { tag: string; when: string; open: boolean }[];
    documents: { documentId: string; name: string; in: boolean; reasons: string[] }[];
    lines: { kind: string; text: string; when: string; applies: boolean }[];
  }[];
}

/**
 * World state made visible: the author sets world and player state, and sees per mind which documents it may
 * know now and why — the gate a turn applies (tags, conditions, timers at a conversation's turn), evaluated
 * by the server without generating anything.
 */
export function StateSimulator({ projectId }: { projectId: string }) {
  const [world, setWorld] = useState<StateRow[]>([{ key: "", value: "" }]);
  const [player, setPlayer] = useState<StateRow[]>([]);
  const [turn, setTurn] = useState("0");
  const [result, setResult] = useState<Simulated | null>(null);
  const act = useAction();
  const run = async () => {
    const r = await act.run(() => admin<Simulated>("POST", `/projects/${projectId}/knowledge-simulate`, { world: rowsToState(world), player: rowsToState(player), turn: Number(turn) || 0 }));
    if (r) setResult(r);
  };
  useEffect(() => {
    run();
  }, [projectId]);
  const gatedMinds = (result?.minds ?? []).map((m) => ({ ...m, documents: m.documents.filter((d) => d.reasons.some((r) => !r.endsWith("(always known)"))) }));
  // (documents a mind always knows by an unconditional tag, with no condition or timer, are the matrix above)
  return (
    <section aria-labelledby="sim-title" data-testid="state-simulator">
      <h2 id="sim-title">World state: who knows what now</h2>
      <p class="muted">
        Set world and player state as your game would (values: true/false, a number or text). Each mind's documents with a condition, a timer or a
        conditionally known tag are shown in or out, with the reason. Nothing is stored.
      </p>
      <form
        class="card"
        aria-label="State simulator"
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        <div class="grid2">
          <StateRows label="World state" rows={world} onChange={setWorld} />
          <StateRows label="Player state" rows={player} onChange={setPlayer} />
        </div>
        <div class="row">
          <label class="field">
            <span class="label">Turn of the conversation</span>
            <input type="number" min={0} aria-label="Turn of the conversation" value={turn} onInput={(e) => setTurn((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" class="primary" disabled={act.busy}>
            Simulate
          </button>
          {result && Object.keys(result.scope.defaults).length > 0 && (
            <span class="muted">
              defaults: {Object.entries(result.scope.defaults).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ")}
            </span>
          )}
        </div>
      </form>
      <ErrorBox error={act.error} />
      {gatedMinds
        .filter((m) => m.documents.length || m.knowledge.length || m.lines.length)
        .map((m) => (
          <div class="card" data-testid={`sim-mind-${m.entityName}`}>
            <h3>{m.entityName}</h3>
            <table class="list" aria-label={`What ${m.entityName} may know now`}>
              <tbody>
                {m.documents.map((d) => (
                  <tr data-testid="sim-doc">
                    <td>
                      <span class={`verdict ${d.in ? "in" : "out"}`}>{d.in ? "in" : "out"}</span>
                    </td>
                    <td>{d.name}</td>
                    <td class="muted">{d.reasons.join(" · ")}</td>
                  </tr>
                ))}
                {m.lines.map((l) => (
                  <tr data-testid="sim-line">
                    <td>
                      <span class={`verdict ${l.applies ? "in" : "out"}`}>{l.applies ? "applies" : "off"}</span>
                    </td>
                    <td>
                      {l.kind}: {l.text}
                    </td>
                    <td class="muted mono">when {l.when}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}
