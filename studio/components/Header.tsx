import { Link } from "wouter-preact";
import { signOut } from "../api.ts";

export function Header({ onSignedOut, project }: { onSignedOut: () => void; project?: { id: string; name: string } | null }) {
  return (
    <header class="top">
      <Link href="/" class="brand">
        Lorehold Studio
      </Link>
      {project && (
        <span class="crumb" aria-label="Current project">
          / {project.name}
        </span>
      )}
      <span class="grow" />
      <a href="/swagger" target="_blank" rel="noopener">
        API reference
      </a>
      <button type="button" onClick={async () => (await signOut(), onSignedOut())}>
        Sign out
      </button>
    </header>
  );
}
