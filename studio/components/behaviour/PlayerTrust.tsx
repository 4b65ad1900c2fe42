import { admin } from "../../api.ts";
import { ErrorBox, useAsync } from "../ui.tsx";

interface TrustView {
  entityMindId: string;
  value: number;
  label: string | null;
  min: number;
  max: number;
  stored: boolean;
}

/** A player's trust in every mind of the project that keeps trust (the admin API's per-player list). */
export function PlayerTrust({ projectId, playerId, mindName, version }: { projectId: string; playerId: string; mindName: (id: string) => string; version: unknown }) {
  const list = useAsync(
    () => admin<{ trust: TrustView[] }>("GET", `/projects/${projectId}/players/${encodeURIComponent(playerId)}/trust`),
    [projectId, playerId, version],
  );
  const rows = list.data?.trust ?? [];
  return (
    <div class="card" data-testid="player-trust">
      <h3>Trust</h3>
      <ErrorBox error={list.error} />
      {rows.length === 0 ? (
        <p class="muted">No mind of this project keeps trust.</p>
      ) : (
        <table class="list compact">
          <thead>
            <tr>
              <th>Mind</th>
              <th>Trust</th>
              <th>Label</th>
              <th>Range</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr data-testid={`trust-${r.entityMindId}`}>
                <td>{mindName(r.entityMindId)}</td>
                <td>
                  {r.value} {!r.stored && <span class="muted">(initial)</span>}
                </td>
                <td>{r.label ?? "—"}</td>
                <td>
                  {r.min} to {r.max}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
