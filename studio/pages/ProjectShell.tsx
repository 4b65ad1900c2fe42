import { Link } from "wouter-preact";
import { admin } from "../api.ts";
import { Header } from "../components/Header.tsx";
import { ErrorBox, useAsync } from "../components/ui.tsx";
import { Overview } from "./Overview.tsx";
import { Keys } from "./Keys.tsx";
import { Minds } from "./Minds.tsx";
import { Lore } from "./Lore.tsx";
import { World } from "./World.tsx";
import { Knowledge } from "./Knowledge.tsx";
import { Playground } from "./Playground.tsx";
import { Tests } from "./Tests.tsx";
import { Scenes } from "./Scenes.tsx";
import { Scanner } from "./Scanner.tsx";
import { Packs } from "./Packs.tsx";
import { Players } from "./Players.tsx";
import { Events } from "./Events.tsx";
import { Usage } from "./Usage.tsx";
import { Settings } from "./Settings.tsx";

const SECTIONS = [
  ["overview", "Overview"],
  ["keys", "API keys"],
  ["minds", "Minds"],
  ["lore", "Lore"],
  ["world", "Tags, places, relations"],
  ["knowledge", "Who knows what"],
  ["playground", "Playground"],
  ["events", "Events"],
  ["tests", "Lore tests"],
  ["scenes", "Scenes"],
  ["scanner", "Scanner"],
  ["packs", "Lore packs"],
  ["players", "Players"],
  ["usage", "Usage & credits"],
  ["settings", "Settings & jobs"],
] as const;

export interface SectionProps {
  projectId: string;
  item?: string;
}

export function ProjectShell({ projectId, section, item, onSignedOut }: { projectId: string; section: string; item?: string; onSignedOut: () => void }) {
  const project = useAsync(() => admin<{ id: string; name: string }>("GET", `/projects/${projectId}`), [projectId]);
  const props = { projectId, item };
  const page: Record<string, () => any> = {
    overview: () => <Overview {...props} />,
    keys: () => <Keys {...props} />,
    minds: () => <Minds {...props} />,
    lore: () => <Lore {...props} />,
    world: () => <World {...props} />,
    knowledge: () => <Knowledge {...props} />,
    playground: () => <Playground {...props} />,
    events: () => <Events {...props} />,
    tests: () => <Tests {...props} />,
    scenes: () => <Scenes {...props} />,
    scanner: () => <Scanner {...props} />,
    packs: () => <Packs {...props} />,
    players: () => <Players {...props} />,
    usage: () => <Usage {...props} />,
    settings: () => <Settings {...props} />,
  };
  return (
    <>
      <Header onSignedOut={onSignedOut} project={project.data} />
      <div class="shell">
        <nav class="side" aria-label="Project sections">
          <ul>
            {SECTIONS.map(([id, label]) => (
              <li>
                <Link href={`/p/${projectId}/${id}`} class={section === id ? "active" : ""} aria-current={section === id ? "page" : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main class="page">
          <ErrorBox error={project.error} />
          {project.data && (page[section] ?? page.overview)()}
        </main>
      </div>
    </>
  );
}
