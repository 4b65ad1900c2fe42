import { admin } from "../api.ts";
import { ErrorBox, useAction, useAsync } from "../components/ui.tsx";

/**
 * Recorded conversations awaiting review: accept one and its case (with suggested expectations) is added to the
 * suite being written; reject one and it is deleted.
 */
export function TestCandidates({ projectId, onAccept }: { projectId: string; onAccept: (caseYaml: string) => void }) {
  const list = useAsync(() => admin<{ candidates: any[] }>("GET", `/projects/${projectId}/lore-tests/candidates`), [projectId]);
  const act = useAction();
  const candidates = list.data?.candidates ?? [];
  const accept = async (id: string) => {
    const r = await act.run(() => admin<{ caseYaml: string }>("POST", `/projects/${projectId}/lore-tests/candidates/${id}/accept`));
    if (r) onAccept(r.caseYaml);
    await list.reload();
  };
  const reject = async (id: string) => {
    await act.run(() => admin("DELETE", `/projects/${projectId}/lore-tests/candidates/${id}`));
    await list.reload();
  };
  return (
    <div class="card" data-testid="test-candidates">
      <h2>Recorded conversations ({candidates.length})</h2>
      <ErrorBox error={act.error ?? list.error} />
      {candidates.length === 0 && <p class="muted">None to review. Turn recording on in Settings to sample real players' sessions.</p>}
      {candidates.map((c) => (
        <details class="case" data-testid="test-candidate" data-candidate={c.id}>
          <summary>
            {c.character ?? c.mindId}: “{c.turns[0]?.player}” <span class="muted">({c.turnCount} turn{c.turnCount === 1 ? "" : "s"}, {c.createdAt}{c.open ? ", still recording" : ""})</span>
          </summary>
          {c.turns.map((t: any) => (
            <div class="test-turn">
              <p>
                <b>Player:</b> {t.player}
              </p>
              <p>
                <b>Reply:</b> {t.reply}
              </p>
              <p class="muted">Lore in the prompt: {t.lore.map((l: any) => l.documentName).join(", ") || "none"}</p>
            </div>
          ))}
          <div class="row">
            <button type="button" class="primary" disabled={act.busy} onClick={() => accept(c.id)}>
              Accept as a test
            </button>
            <button type="button" disabled={act.busy} onClick={() => reject(c.id)}>
              Reject
            </button>
          </div>
        </details>
      ))}
    </div>
  );
}
