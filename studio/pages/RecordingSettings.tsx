import { useEffect, useState } from "preact/hooks";
import { admin } from "../api.ts";
import { ErrorBox, Field, useAction, useAsync } from "../components/ui.tsx";

/** The project's consent to record real conversations as candidate lore tests (reviewed on the Lore tests page). */
export function RecordingSettings({ projectId, onSaved }: { projectId: string; onSaved: (msg: string) => void }) {
  const rec = useAsync(() => admin<{ recordConversations: boolean; recordSampleRate: number }>("GET", `/projects/${projectId}/lore-tests/recording`), [projectId]);
  const [r, setR] = useState<{ recordConversations: boolean; recordSampleRate: number | string } | null>(null);
  const act = useAction();
  useEffect(() => {
    if (rec.data) setR(rec.data);
  }, [rec.data]);
  if (!r) return <ErrorBox error={rec.error} />;
  return (
    <form
      class="card"
      aria-label="Recording"
      onSubmit={async (e) => {
        e.preventDefault();
        const body = { recordConversations: r.recordConversations, recordSampleRate: Number(r.recordSampleRate) };
        if (await act.run(() => admin("PATCH", `/projects/${projectId}/lore-tests/recording`, body))) onSaved("Recording saved.");
      }}
    >
      <h2>Recording for lore tests</h2>
      <p class="muted">Sampled sessions of real players become candidate test cases to review. Players are kept only as a salted hash, and erased with the player.</p>
      <ErrorBox error={act.error} />
      <label class="inline">
        <input type="checkbox" checked={r.recordConversations} onChange={(e) => setR({ ...r, recordConversations: (e.target as HTMLInputElement).checked })} /> Record conversations
      </label>
      <Field label="Share of sessions recorded (0–1)">
        <input type="number" min={0} max={1} step={0.01} value={r.recordSampleRate} onInput={(e) => setR({ ...r, recordSampleRate: (e.target as HTMLInputElement).value })} />
      </Field>
      <button type="submit" class="primary">
        Save recording
      </button>
    </form>
  );
}
