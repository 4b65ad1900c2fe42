import { useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { admin } from "../api.ts";
import { Header } from "../components/Header.tsx";
import { Confirm, ErrorBox, fmtDate, Loading, useAction, useAsync } from "../components/ui.tsx";

interface Project {
  id: string;
  name: string;
  createdAt: string;
}

export function Projects({ onSignedOut }: { onSignedOut: () => void }) {
  const list = useAsync(() => admin<{ projects: Project[] }>("GET", "/projects"), []);
  const [name, setName] = useState("");
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);
  const act = useAction();
  const [, go] = useLocation();
  const create = async (e: Event) => {
    e.preventDefault();
    const p = await act.run(() => admin<Project>("POST", "/projects", { name }));
    if (p) {
      setName("");
      go(`/p/${p.id}`);
    }
  };
  return (
    <>
      <Header onSignedOut={onSignedOut} />
      <main class="page">
        <h1>Projects</h1>
        <form class="row card" onSubmit={create} aria-label="Create a project">
          <label class="field grow">
            <span class="label">New project name</span>
            <input required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <button class="primary" type="submit" disabled={act.busy}>
            Create project
          </button>
        </form>
        <ErrorBox error={act.error ?? list.error} />
        {list.loading && !list.data && <Loading />}
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Created</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.projects.map((p) => (
              <tr>
                <td>
                  {renaming?.id === p.id ? (
                    <form
                      class="row"
                      onSubmit={async (e) => {
                        e.preventDefault();
                        if (await act.run(() => admin("PATCH", `/projects/${p.id}`, { name: renaming.name }))) {
                          setRenaming(null);
                          list.reload();
                        }
                      }}
                    >
                      <input aria-label="Project name" value={renaming.name} onInput={(e) => setRenaming({ id: p.id, name: (e.target as HTMLInputElement).value })} />
                      <button type="submit">Save</button>
                      <button type="button" onClick={() => setRenaming(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : (
                    <Link href={`/p/${p.id}`}>{p.name}</Link>
                  )}
                </td>
                <td>{fmtDate(p.createdAt)}</td>
                <td class="actions">
                  <button type="button" onClick={() => setRenaming({ id: p.id, name: p.name })}>
                    Rename
                  </button>
                  <button type="button" class="danger" onClick={() => setDeleting(p)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
            {list.data?.projects.length === 0 && (
              <tr>
                <td colSpan={3} class="muted">
                  No projects yet: create one above.
                </td>
              </tr>
            )}
          </tbody>
        </table>
        <Confirm
          open={!!deleting}
          title={`Delete “${deleting?.name}”?`}
          body={<p>This deletes the project and everything in it: minds, lore, keys, players' memories. It cannot be undone.</p>}
          confirmLabel="Delete project"
          onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            const p = deleting!;
            setDeleting(null);
            await act.run(() => admin("DELETE", `/projects/${p.id}`));
            list.reload();
          }}
        />
      </main>
    </>
  );
}
