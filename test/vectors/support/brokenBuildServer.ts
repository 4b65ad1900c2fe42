// A server process (Bun.serve) over a project cache whose column copy throws in the background
// (brokenBuilds.ts columnCopyOverBrokenBlock): test/vectors/buildFailures.test.ts asks it to search and
// sees whether it is still there. Prints its port on the first line of stdout.
import { columnCopyOverBrokenBlock, sparseQueries } from "./brokenBuilds.ts";

const { cache, tags } = columnCopyOverBrokenBlock({ buildRetryMs: 0 });
const queries = sparseQueries(8);
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/search") return Response.json(cache.search(queries[Number(url.searchParams.get("q")) % queries.length], tags, 5));
    if (url.pathname === "/idle") {
      await cache.indexIdle();
      return new Response("idle");
    }
    return Response.json({ columns: cache.columnState, alive: true });
  },
});
console.log(server.port);
