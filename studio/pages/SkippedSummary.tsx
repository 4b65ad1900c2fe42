import { useState } from "preact/hooks";

/**
 * What the scanner left out, by reason, with how to scan it after all: the `include: <kind>` line to
 * add to "What are these files?" (the job's userContext) before submitting the files again.
 */
export function SkippedSummary({ skipped }: { skipped: any[] }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async (line: string) => {
    try {
      await navigator.clipboard.writeText(line);
      setCopied(line);
    } catch {
      setCopied(null);
    }
  };
  return (
    <section aria-labelledby="skipped-title" data-testid="skipped-summary">
      <h3 id="skipped-title">Skipped content</h3>
      {skipped.length === 0 && <p class="muted">Nothing skipped.</p>}
      {skipped.map((s) => (
        <details class="skipped">
          <summary>
            <strong>{s.files}</strong> file(s): {s.reason}
          </summary>
          {s.include && (
            <p>
              To scan these, submit the files again with the line <code>include: {s.include}</code> in "What are these files?"{" "}
              <button type="button" class="small" onClick={() => copy(`include: ${s.include}`)}>
                {copied === `include: ${s.include}` ? "Copied" : "Copy the line"}
              </button>
            </p>
          )}
          <ul>
            {s.entries.map((e: any) => (
              <li>
                <code>{e.sourceFile}</code> · {e.section}
              </li>
            ))}
          </ul>
        </details>
      ))}
    </section>
  );
}
