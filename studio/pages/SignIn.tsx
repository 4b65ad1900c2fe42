import { useState } from "preact/hooks";
import { signIn } from "../api.ts";
import { ErrorBox, useAction } from "../components/ui.tsx";

/** The admin token is sent once and exchanged for an HttpOnly cookie; it is never stored by the page. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState("");
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await act.run(async () => (await signIn(token), true));
    setToken("");
    if (ok) onSignedIn();
  };
  return (
    <main class="signin">
      <form onSubmit={submit} class="card" aria-labelledby="signin-title">
        <h1 id="signin-title">Lorehold Studio</h1>
        <p class="muted">Sign in with this server's admin token (<code>lorehold init</code> or <code>npm start</code> prints it).</p>
        <label class="field">
          <span class="label">Admin token</span>
          <input type="password" name="token" autocomplete="current-password" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} autofocus />
        </label>
        <ErrorBox error={act.error} />
        <button class="primary" type="submit" disabled={act.busy}>
          {act.busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
