import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { download, ErrorBox, useAction } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";

const KINDS = ["tags", "locations", "relationshipTypes", "documents", "minds", "relationships", "events"];

/** Import a YAML/JSON lore pack (dry run first: what would change, or every problem by path); export as a download. */
export function Packs({ projectId }: SectionProps) {
  const [fileName, setFileName] = useState("pack.yaml");
  const [text, setText] = useState("");
  const [plan, setPlan] = useState<any>(null);
  const [imported, setImported] = useState<any>(null);
  const act = useAction();
  const run = async (dryRun: boolean) => {
    setPlan(null);
    setImported(null);
    const r = await act.run(() => admin("POST", `/projects/${projectId}/packs/import`, { text, fileName, dryRun }));
    if (r) (dryRun ? setPlan : setImported)(r);
  };
  const exportAs = async (format: "yaml" | "json") => {
    await act.run(async () => {
      const res = await fetch(`/admin/v1/projects/${projectId}/packs/export?format=${format}`, { credentials: "same-origin" });
      if (!res.ok) throw new Error(`export failed (${res.status})`);
      const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? `lore.${format}`;
      download(name, await res.text(), format === "json" ? "application/json" : "application/yaml");
      return true;
    });
  };
  return (
    <section aria-labelledby="packs-title">
      <h1 id="packs-title">Lore packs</h1>
      <div class="card">
        <div class="row">
          <label class="button">
            Open a pack file
            <input
              class="visually-hidden"
              type="file"
              data-testid="pack-input"
              accept=".yaml,.yml,.json"
              onChange={async (e) => {
                const f = (e.target as HTMLInputElement).files?.[0];
                if (!f) return;
                setFileName(f.name);
                setText(await f.text());
                setPlan(null);
                setImported(null);
              }}
            />
          </label>
          <span class="muted grow">{fileName}</span>
          <button type="button" onClick={() => exportAs("yaml")}>
            Export YAML
          </button>
          <button type="button" onClick={() => exportAs("json")}>
            Export JSON
          </button>
        </div>
        <label class="field">
          <span class="label">Pack text (YAML or JSON)</span>
          <textarea class="mono" rows={14} value={text} onInput={(e) => (setText((e.target as HTMLTextAreaElement).value), setPlan(null))} />
        </label>
        <div class="row">
          <button type="button" disabled={!text || act.busy} onClick={() => run(true)}>
            Check (dry run)
          </button>
          <button type="button" class="primary" disabled={!plan || act.busy} onClick={() => run(false)} title={plan ? "" : "Run the check first"}>
            Import
          </button>
        </div>
      </div>
      <div data-testid="pack-problems">
        <ErrorBox error={act.error} />
      </div>
      {plan && (
        <div class="card" data-testid="pack-plan">
          <h2>What the import would do</h2>
          <table class="list compact">
            <thead>
              <tr>
                <th>Section</th>
                <th>Create</th>
                <th>Update</th>
                <th>Unchanged</th>
              </tr>
            </thead>
            <tbody>
              {KINDS.map((k) => (
                <tr>
                  <td>{k}</td>
                  <td>{plan.changes[k]?.create.join(", ") || "—"}</td>
                  <td>{plan.changes[k]?.update.join(", ") || "—"}</td>
                  <td>{plan.changes[k]?.unchanged.length ?? 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {imported && (
        <p class="card ok" role="status" data-testid="pack-imported">
          Imported: {KINDS.map((k) => `${Object.keys(imported.ids[k] ?? {}).length} ${k}`).join(", ")}.
        </p>
      )}
    </section>
  );
}
