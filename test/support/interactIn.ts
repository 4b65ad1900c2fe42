import type { App } from "../../src/app/App.ts";

/** One `POST /v1/npc/interact` through the app, as a game server would send it: status, body and Server-Timing. */
export async function interactIn(app: App, serverKey: string, body: { text: string; entityMindId: string; playerId: string }) {
  const res = await app.handle(
    new Request("http://localhost/v1/npc/interact", {
      method: "POST",
      headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json(), timing: res.headers.get("server-timing") ?? "" };
}

/** One unlabelled metric's value from the app's Prometheus text (NaN when it is absent). */
export async function metricIn(app: App, name: string): Promise<number> {
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(await app.metrics.text())?.[1] ?? NaN);
}
