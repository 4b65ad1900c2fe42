import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { Confirm, download, ErrorBox, fmtDate, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { PlayerTrust } from "../components/behaviour/PlayerTrust.tsx";

/** A player's sessions and memories per mind; export (JSON) and erase (the right to be forgotten). */
export function Players({ projectId }: SectionProps) {
  const [playerId, setPlayerId] = useState("");
  const [data, setData] = useState<any>(null);
  const [erasing, setErasing] = useState(false);
  const [erased, setErased] = useState<any>(null);
  const act = useAction();
  // Mind names are needed only once a player is shown: fetching a thousand minds up front held the search form back.
  const minds = useAsync(() => (data ? admin<{ minds: { id: string; entityName: string }[] }>("GET", `/projects/${projectId}/minds`) : Promise.resolve(null)), [projectId, data !== null]);
  const mindName = (id: string) => minds.data?.minds.find((m) => m.id === id)?.entityName ?? id;
  const base = (id: string) => `/projects/${projectId}/players/${encodeURIComponent(id)}`;
  const find = async (e?: Event) => {
    e?.preventDefault();
    setErased(null);
    const d = await act.run(() => admin("GET", `${base(playerId)}/export`));
    if (d) setData(d);
  };
  const mindIds = data ? [...new Set([...data.memories.map((m: any) => m.entityMindId), ...data.sessions.map((s: any) => s.entityMindId)])] : [];
  return (
    <section aria-labelledby="players-title">
      <h1 id="players-title">Players</h1>
      <form class="row card" onSubmit={find} role="search">
        <label class="field grow">
          <span class="label">Player id</span>
          <input required maxLength={255} value={playerId} onInput={(e) => setPlayerId((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="primary">
          Find
        </button>
      </form>
      <ErrorBox error={act.error} />
      {erased && (
        <p class="card ok" role="status" data-testid="erased">
          Erased {erased.memoriesDeleted} memories and {erased.sessionsDeleted} sessions of {erased.playerId}.
        </p>
      )}
      {data && (
        <div data-testid="player-data">
          <div class="row">
            <h2 class="grow">
              {data.playerId}: {data.memories.length} memories, {data.sessions.length} sessions
            </h2>
            <button type="button" onClick={() => download(`player-${data.playerId}.json`, JSON.stringify(data, null, 2), "application/json")}>
              Export JSON
            </button>
            <button type="button" class="danger" disabled={data.memories.length + data.sessions.length === 0} onClick={() => setErasing(true)}>
              Erase everything
            </button>
          </div>
          <PlayerTrust projectId={projectId} playerId={data.playerId} mindName={mindName} version={data} />
          {mindIds.map((mindId) => (
            <div class="card">
              <h3>{mindName(mindId)}</h3>
              <h4>Memories</h4>
              <ul>
                {data.memories
                  .filter((m: any) => m.entityMindId === mindId)
                  .map((m: any) => (
                    <li>
                      {m.text} <span class="muted">(importance {m.importance}, {fmtDate(m.createdAt)})</span>
                    </li>
                  ))}
              </ul>
              <h4>Session</h4>
              {data.sessions
                .filter((s: any) => s.entityMindId === mindId)
                .map((s: any) => (
                  <ol>
                    {s.messages.map((m: any) => (
                      <li>
                        <strong>{m.role}:</strong> {m.content}
                      </li>
                    ))}
                  </ol>
                ))}
            </div>
          ))}
          {mindIds.length === 0 && <p class="muted">Nothing is kept about this player.</p>}
        </div>
      )}
      <Confirm
        open={erasing}
        title={`Erase everything about ${data?.playerId}?`}
        body={<p>Their memories and sessions with every mind in this project are deleted. This cannot be undone.</p>}
        confirmLabel="Erase player"
        onCancel={() => setErasing(false)}
        onConfirm={async () => {
          setErasing(false);
          const r = await act.run(() => admin("DELETE", `${base(data.playerId)}/memories`));
          if (r) {
            setErased(r);
            await find();
            setErased(r);
          }
        }}
      />
    </section>
  );
}
