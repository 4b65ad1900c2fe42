import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LoreholdClient, LoreholdError, type SceneStreamEvent } from "../../sdk/typescript/src/index.ts";
import { startLiveServer, type LiveServer } from "./liveServer.ts";

// real llama.cpp (tiny GGUF) behind a real socket, on shared cores
setDefaultTimeout(120_000);

let s: LiveServer;
let server: LoreholdClient;

beforeAll(async () => {
  s = await startLiveServer();
  server = new LoreholdClient({ baseUrl: s.baseUrl, apiKey: s.world.keys.server });
}, 60_000);
afterAll(() => s.close());

describe("scenes through the TypeScript SDK", () => {
  test("create, turn, stream in order, change, end", async () => {
    const { sceneId } = await server.createScene({ minds: [s.world.minds.garrick, { mindId: s.world.minds.elena, talkativeness: 0.9 }], location: "the Tankard" });
    const turn = await server.sceneTurn(sceneId, { text: "Garrick, hello!" });
    expect(turn.lines.length).toBe(1);
    expect(turn.lines[0].character).toBe("Garrick");
    const events: SceneStreamEvent[] = [];
    for await (const ev of server.sceneTurnStream(sceneId, { text: "Elena, and you?", maxLines: 2 })) events.push(ev);
    const kinds = events.map((e) => e.type).filter((k) => k !== "token").join(",");
    expect(kinds).toMatch(/^speaker,line(,speaker,line)?,turn$/);
    const last = events.at(-1)!;
    expect(last.type).toBe("turn");
    if (last.type === "turn") expect(last.turn.lines[0].mindId).toBe(s.world.minds.elena);
    const changed = await server.changeScene(sceneId, { leave: [s.world.minds.elena] });
    expect(changed.minds.map((m) => m.character)).toEqual(["Garrick"]);
    expect((await server.scene(sceneId)).lines.length).toBe(2 + turn.lines.length + (last.type === "turn" ? last.turn.lines.length : 0));
    expect(await server.endScene(sceneId)).toMatchObject({ sceneId, ended: true });
    const gone = await server.scene(sceneId).catch((e) => e);
    expect(gone).toBeInstanceOf(LoreholdError);
    expect(gone.status).toBe(404);
  });
});
