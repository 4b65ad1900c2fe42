import { useEffect, useState } from "preact/hooks";
import { admin, json } from "../api.ts";
import { ErrorBox, Field, fmtDate, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { RecordingSettings } from "./RecordingSettings.tsx";

/** Project settings and rate limits, background jobs ("run now"), model and native status. */
export function Settings({ projectId }: SectionProps) {
  const settings = useAsync(() => admin("GET", `/projects/${projectId}/settings`), [projectId]);
  const limits = useAsync(() => admin("GET", `/projects/${projectId}/rate-limits`), [projectId]);
  const jobs = useAsync(() => admin("GET", "/jobs"), []);
  const ready = useAsync(() => json("GET", "/readyz").catch((e) => e.body), []);
  const [s, setS] = useState<any>(null);
  const [l, setL] = useState<any>(null);
  const [saved, setSaved] = useState("");
  const act = useAction();
  useEffect(() => settings.data && setS(settings.data.settings), [settings.data]);
  useEffect(() => limits.data && setL(limits.data), [limits.data]);
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings and jobs</h1>
      <ErrorBox error={act.error ?? settings.error} />
      {saved && (
        <p class="card ok" role="status">
          {saved}
        </p>
      )}
      <div class="grid2">
        {s && (
          <form
            class="card"
            aria-label="Project settings"
            onSubmit={async (e) => {
              e.preventDefault();
              const body = { longTermMemoryEnabled: s.longTermMemoryEnabled, maxSessionLength: Number(s.maxSessionLength), maxSessionTokens: Number(s.maxSessionTokens), enhancedMemoryRetrieval: s.enhancedMemoryRetrieval };
              if (await act.run(() => admin("PATCH", `/projects/${projectId}/settings`, body))) setSaved("Settings saved.");
            }}
          >
            <h2>Project settings</h2>
            <label class="inline">
              <input type="checkbox" checked={s.longTermMemoryEnabled} onChange={(e) => setS({ ...s, longTermMemoryEnabled: (e.target as HTMLInputElement).checked })} /> Long-term memory
            </label>
            <label class="inline">
              <input type="checkbox" checked={s.enhancedMemoryRetrieval} onChange={(e) => setS({ ...s, enhancedMemoryRetrieval: (e.target as HTMLInputElement).checked })} /> Enhanced memory retrieval
            </label>
            <Field label="Max session length (turns)">
              <input type="number" min={1} max={1000} value={s.maxSessionLength} onInput={(e) => setS({ ...s, maxSessionLength: (e.target as HTMLInputElement).value })} />
            </Field>
            <Field label="Max session tokens">
              <input type="number" min={100} value={s.maxSessionTokens} onInput={(e) => setS({ ...s, maxSessionTokens: (e.target as HTMLInputElement).value })} />
            </Field>
            <button type="submit" class="primary">
              Save settings
            </button>
          </form>
        )}
        {l && (
          <form
            class="card"
            aria-label="Rate limits"
            onSubmit={async (e) => {
              e.preventDefault();
              if (await act.run(() => admin("PATCH", `/projects/${projectId}/rate-limits`, { perPlayerPerMinute: Number(l.perPlayerPerMinute), perProjectPerMinute: Number(l.perProjectPerMinute) })))
                setSaved("Rate limits saved.");
            }}
          >
            <h2>Rate limits</h2>
            <Field label="Requests per player per minute">
              <input type="number" min={1} value={l.perPlayerPerMinute} onInput={(e) => setL({ ...l, perPlayerPerMinute: (e.target as HTMLInputElement).value })} />
            </Field>
            <Field label="Requests per project per minute">
              <input type="number" min={1} value={l.perProjectPerMinute} onInput={(e) => setL({ ...l, perProjectPerMinute: (e.target as HTMLInputElement).value })} />
            </Field>
            <button type="submit" class="primary">
              Save limits
            </button>
          </form>
        )}
        <RecordingSettings projectId={projectId} onSaved={setSaved} />
      </div>
      <h2>Background jobs</h2>
      <table class="list compact">
        <thead>
          <tr>
            <th>Job</th>
            <th>Schedule</th>
            <th>Runs</th>
            <th>Last run</th>
            <th>Last error</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {jobs.data?.jobs.map((j: any) => (
            <tr>
              <td>{j.name}</td>
              <td>
                <code>{j.schedule}</code>
              </td>
              <td>
                {j.runs} ({j.failures} failed)
              </td>
              <td>{fmtDate(j.lastRunAt)}</td>
              <td class={j.lastError ? "warn" : ""}>{j.lastError ?? "—"}</td>
              <td>
                <button type="button" class="small" disabled={act.busy} onClick={async () => (await act.run(() => admin("POST", `/jobs/${encodeURIComponent(j.name)}/run`))) && jobs.reload()}>
                  Run now
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Model and natives</h2>
      {ready.data && (
        <dl class="facts">
          <dt>Ready</dt>
          <dd>{String(ready.data.ready)}</dd>
          <dt>Model</dt>
          <dd>
            {ready.data.model?.state} {ready.data.model?.path ?? ready.data.model?.error ?? ""}
          </dd>
          <dt>Embedder</dt>
          <dd>{ready.data.embedder}</dd>
          <dt>Natives</dt>
          <dd>
            {ready.data.native?.source} {ready.data.native?.extracted ? "(extracted)" : ""} {ready.data.native?.extractReason ?? ""}
          </dd>
          <dt>Migrations</dt>
          <dd>{ready.data.migrations}</dd>
        </dl>
      )}
    </section>
  );
}
