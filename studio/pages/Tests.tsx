import { useEffect, useState } from "preact/hooks";
import { admin } from "../api.ts";
import { ErrorBox, StatusBadge, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { TestCandidates } from "./TestCandidates.tsx";
import { appendCase } from "./turnAsTest.ts";

const STARTER = `tests:
  - name: knows its own lore
    mind: MIND-KEY
    turns:
      - say: What can you tell me about this place?
        expect:
          knowsFrom: [DOCUMENT-KEY]
          noLeakOf: [SECRET-TAG]
`;
/** Where the page keeps the suite being written (the playground's "Save as a test" adds to it). */
export const draftKey = (projectId: string) => `lorehold.tests.${projectId}`;

/** Lore tests: write a suite with validation, run it on a scratch copy (live progress), history of runs, a diff of two. */
export function Tests({ projectId }: SectionProps) {
  const [text, setText] = useState(() => localStorage.getItem(draftKey(projectId)) ?? STARTER);
  const [checked, setChecked] = useState<any>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [pick, setPick] = useState<string[]>([]);
  const runs = useAsync(() => admin<{ runs: any[] }>("GET", `/projects/${projectId}/lore-tests/runs`), [projectId]);
  const act = useAction();
  const files = () => [{ file: "studio.test.yaml", text }];
  const active = runs.data?.runs.some((r) => r.status === "QUEUED" || r.status === "RUNNING");
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => void runs.reload(), 1000);
    return () => clearInterval(timer);
  }, [active]);
  const edit = (v: string) => {
    setText(v);
    setChecked(null);
    localStorage.setItem(draftKey(projectId), v);
  };
  const validate = async () => setChecked(await act.run(() => admin("POST", `/projects/${projectId}/lore-tests/validate`, { files: files() })));
  const start = async () => {
    const r = await act.run(() => admin("POST", `/projects/${projectId}/lore-tests/runs`, { files: files() }));
    if (r) {
      setOpen(r.id);
      await runs.reload();
    }
  };
  const toggle = (id: string) => setPick((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));
  return (
    <section aria-labelledby="tests-title">
      <h1 id="tests-title">Lore tests</h1>
      <p class="muted">Conversation suites run on a scratch copy of this project: no player, session, memory, trust or credit of the project is touched.</p>
      <div class="card">
        <label class="field">
          <span class="label">Suite (YAML, the format of *.test.yaml files)</span>
          <textarea class="mono" rows={14} value={text} aria-label="Suite" onInput={(e) => edit((e.target as HTMLTextAreaElement).value)} />
        </label>
        <div class="row">
          <button type="button" disabled={act.busy} onClick={validate}>
            Validate
          </button>
          <button type="button" class="primary" disabled={act.busy} onClick={start}>
            Run suite
          </button>
        </div>
      </div>
      <div data-testid="tests-problems">
        <ErrorBox error={act.error} />
      </div>
      {checked && (
        <p class="card ok" role="status" data-testid="tests-valid">
          Valid: {checked.cases.length} case{checked.cases.length === 1 ? "" : "s"} ({checked.cases.map((c: any) => `${c.name} — ${c.mind}`).join("; ")}).
        </p>
      )}
      <div class="card">
        <h2>Runs</h2>
        <table class="list compact" data-testid="test-runs">
          <thead>
            <tr>
              <th>Compare</th>
              <th>Run</th>
              <th>Status</th>
              <th>Progress</th>
              <th>Model</th>
              <th>Lore</th>
            </tr>
          </thead>
          <tbody>
            {(runs.data?.runs ?? []).map((r) => (
              <tr data-testid="test-run" data-run={r.id}>
                <td>
                  <input type="checkbox" aria-label={`Compare ${r.id}`} checked={pick.includes(r.id)} onChange={() => toggle(r.id)} />
                </td>
                <td>
                  <button type="button" class="link" onClick={() => setOpen(r.id)}>
                    {r.id}
                  </button>
                  <div class="muted">{r.createdAt}</div>
                </td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td>
                  <progress max={r.progress.total || 1} value={r.progress.done} aria-label={`Progress of ${r.id}`} /> {r.progress.done}/{r.progress.total}, {r.progress.failed} failed
                </td>
                <td class="mono">{r.model ?? "—"}</td>
                <td class="mono">{r.loreRevision ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div class="row">
          <button type="button" disabled={pick.length !== 2} onClick={() => setOpen(`compare:${pick[0]}:${pick[1]}`)}>
            Compare the two selected runs
          </button>
        </div>
      </div>
      <TestCandidates projectId={projectId} onAccept={(caseYaml) => edit(appendCase(text, caseYaml))} />
      {open && !open.startsWith("compare:") && <RunResults projectId={projectId} runId={open} tick={runs.data} />}
      {open?.startsWith("compare:") && <Compare projectId={projectId} a={open.split(":")[1]} b={open.split(":")[2]} />}
    </section>
  );
}

function RunResults({ projectId, runId, tick }: { projectId: string; runId: string; tick: unknown }) {
  const r = useAsync(() => admin("GET", `/projects/${projectId}/lore-tests/runs/${runId}/results`), [runId, tick]);
  if (!r.data) return <ErrorBox error={r.error} />;
  return (
    <div class="card" data-testid="test-results">
      <h2>
        Run {runId}: <StatusBadge status={r.data.run.status} />
      </h2>
      {r.data.run.error && <p role="alert">{r.data.run.error}</p>}
      {r.data.cases.map((c: any) => (
        <CaseView c={c} />
      ))}
    </div>
  );
}

function CaseView({ c }: { c: any }) {
  return (
    <details class="case" data-testid="test-case" open={!c.passed}>
      <summary>
        <span class={c.passed ? "ok" : "bad"}>{c.passed ? "pass" : "FAIL"}</span> {c.name}{" "}
        <span class="muted">
          ({Math.round(c.passRate * c.runs.length)}/{c.runs.length} runs, needs {Math.round(c.requiredRate * 100)}%)
        </span>
      </summary>
      {c.runs.map((run: any) => (
        <RunTurns run={run} />
      ))}
    </details>
  );
}

function RunTurns({ run }: { run: any }) {
  return (
    <div class="run">
      <h3>Run {run.run + 1}</h3>
      {run.error && <p role="alert">{run.error}</p>}
      {run.turns.map((t: any) => (
        <div class="test-turn">
          <p>
            <b>Player:</b> {t.say}
          </p>
          <p data-testid="test-reply">
            <b>Reply:</b> {t.reply}
          </p>
          <p class="muted" data-testid="test-lore">
            Lore in the prompt: {t.trace.lore.map((l: any) => `${l.documentName} #${l.chunkIndex} (${l.turn})`).join(", ") || "none"}
          </p>
          <ul class="checks">
            {t.checks.map((k: any) => (
              <li class={k.pass ? "ok" : "bad"} data-testid="test-check">
                {k.pass ? "✓" : "✗"} {k.check}: {k.detail}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function Compare({ projectId, a, b }: { projectId: string; a: string; b: string }) {
  const d = useAsync(() => admin("GET", `/projects/${projectId}/lore-tests/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`), [a, b]);
  if (!d.data) return <ErrorBox error={d.error} />;
  return (
    <div class="card" data-testid="test-compare">
      <h2>
        {a} → {b}: {d.data.changed.length} changed, {d.data.unchanged} unchanged
      </h2>
      {d.data.changed.map((c: any) => (
        <div class="diff" data-testid="test-diff">
          <h3>
            <span class={c.direction === "fixed" ? "ok" : "bad"}>{c.direction === "fixed" ? "FIXED" : "BROKE"}</span> {c.name}
          </h3>
          <div class="side-by-side">
            {[c.a, c.b].map((side: any, i: number) => (
              <div>
                <h4>
                  {i === 0 ? a : b}: {side.passed ? "pass" : "fail"}
                </h4>
                {side.runs.slice(0, 1).map((run: any) => (
                  <RunTurns run={run} />
                ))}
              </div>
            ))}
          </div>
        </div>
      ))}
    </div>
  );
}
