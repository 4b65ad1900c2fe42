import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Route, Router, Switch } from "wouter-preact";
import { useHashLocation } from "wouter-preact/use-hash-location";
import { session, whenSignedOut } from "./api.ts";
import { SignIn } from "./pages/SignIn.tsx";
import { Projects } from "./pages/Projects.tsx";
import { ProjectShell } from "./pages/ProjectShell.tsx";
import "./styles.css";

/** Hash routing; a query after the path (e.g. ?mind=) is for the page, not the route. */
function useHashPath(): [string, (to: string, opts?: any) => void] {
  const [loc, navigate] = useHashLocation();
  return [loc.split("?")[0], navigate];
}

function App() {
  const [state, setState] = useState<"checking" | "in" | "out">("checking");
  useEffect(() => {
    whenSignedOut(() => setState("out"));
    session().then((ok) => setState(ok ? "in" : "out"));
  }, []);
  if (state === "checking") return <p class="muted center">Loading Lorehold Studio…</p>;
  if (state === "out") return <SignIn onSignedIn={() => setState("in")} />;
  return (
    <Router hook={useHashPath as any}>
      <Switch>
        <Route path="/p/:projectId/:section?/:item?">{(p: Record<string, string | undefined>) => <ProjectShell projectId={p.projectId!} section={p.section ?? "overview"} item={p.item} onSignedOut={() => setState("out")} />}</Route>
        <Route>
          <Projects onSignedOut={() => setState("out")} />
        </Route>
      </Switch>
    </Router>
  );
}

render(<App />, document.getElementById("app")!);
