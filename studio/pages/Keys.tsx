import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { Confirm, ErrorBox, fmtDate, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";

interface Key {
  id: string;
  type: "server" | "editor";
  name: string | null;
  display: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function Keys({ projectId }: SectionProps) {
  const keys = useAsync(() => admin<{ keys: Key[] }>("GET", `/projects/${projectId}/keys`), [projectId]);
  const [type, setType] = useState<"server" | "editor">("server");
  const [name, setName] = useState("");
  const [shown, setShown] = useState<{ key: string; type: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const act = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    const k = await act.run(() => admin("POST", `/projects/${projectId}/keys`, { type, name: name || null }));
    if (k) {
      setShown({ key: k.key, type: k.type });
      setCopied(false);
      setName("");
      keys.reload();
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <form class="row card" onSubmit={create} aria-label="Create an API key">
        <label class="field">
          <span class="label">Type</span>
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as any)}>
            <option value="server">Server Key (POST /npc/interact)</option>
            <option value="editor">Editor Key (lore, settings, scanner)</option>
          </select>
        </label>
        <label class="field grow">
          <span class="label">Name (optional)</span>
          <input value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button class="primary" type="submit" disabled={act.busy}>
          Create key
        </button>
      </form>
      {shown && (
        <div class="card notice" role="status" data-testid="new-key">
          <p>
            <strong>Copy this key now: it is shown only once.</strong>{" "}
            {shown.type === "server"
              ? "For production a Server Key is held on your game's backend, never shipped in game builds."
              : "An Editor Key must never be included in builds."}
          </p>
          <div class="row">
            <code class="secret">{shown.key}</code>
            <button
              type="button"
              onClick={async () => {
                try {
                  await navigator.clipboard.writeText(shown.key);
                  setCopied(true);
                } catch {
                  setCopied(false);
                }
              }}
            >
              {copied ? "Copied" : "Copy"}
            </button>
            <button type="button" onClick={() => setShown(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <ErrorBox error={act.error ?? keys.error} />
      <table class="list">
        <thead>
          <tr>
            <th>Key</th>
            <th>Type</th>
            <th>Name</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.keys.map((k) => (
            <tr class={k.revokedAt ? "revoked" : ""}>
              <td>
                <code>{k.display}</code>
              </td>
              <td>{k.type === "server" ? "Server" : "Editor"}</td>
              <td>{k.name ?? "—"}</td>
              <td>{fmtDate(k.createdAt)}</td>
              <td>{fmtDate(k.lastUsedAt)}</td>
              <td>
                {k.revokedAt ? (
                  <span class="muted">revoked {fmtDate(k.revokedAt)}</span>
                ) : (
                  <button type="button" class="danger" onClick={() => setRevoking(k)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Confirm
        open={!!revoking}
        title={`Revoke ${revoking?.display}?`}
        body={<p>Anything using this key stops working at once. Rotate first: create a new key, update your backend, verify, then revoke.</p>}
        confirmLabel="Revoke key"
        onCancel={() => setRevoking(null)}
        onConfirm={async () => {
          const k = revoking!;
          setRevoking(null);
          await act.run(() => admin("DELETE", `/projects/${projectId}/keys/${k.id}`));
          keys.reload();
        }}
      />
    </section>
  );
}
