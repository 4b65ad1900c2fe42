/**
 * A little HTTP/1.1 file server on 127.0.0.1 for `model pull` tests, written
 * on a raw TCP socket so that it can do what Bun.serve will not: announce a
 * Content-Length and then drop the connection mid-way. Supports Range (206,
 * 416, If-Range), imitates Hugging Face's redirect with x-linked-etag, and
 * answers the Hub's model API (`/api/models/<user>/<repo>`) from `repos`.
 */
import type { Socket } from "bun";

export interface ServedFile {
  body: Uint8Array;
  /** sent as a strong ETag */
  etag?: string;
  /** Hugging Face style: GET answers 302 to /cdn/<path> and announces x-linked-etag / x-linked-size on the redirect */
  hfRedirect?: { linkedEtag?: string };
  /** send this many bytes of the body, then close the connection, on the first `times` requests */
  dropAfter?: { bytes: number; times: number };
  /** answer Range requests with the whole file (200), as a server without Range support does */
  ignoreRange?: boolean;
}

export interface RequestLog {
  path: string;
  range: string | null;
  ifRange: string | null;
  authorization: string | null;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** bytes of the body to send before closing (default: all) */
  cut?: number;
}

interface Conn {
  buf: string;
  pending: Uint8Array | null;
  /** a dropped reply closes a moment after its last byte, so the client can read what it got */
  dropAfterMs: number;
}

const REASONS: Record<number, string> = { 200: "OK", 206: "Partial Content", 302: "Found", 404: "Not Found", 416: "Range Not Satisfiable" };

export function startFileServer(files: Record<string, ServedFile>, repos: Record<string, string[]> = {}) {
  const log: RequestLog[] = [];
  const drops = new Map<string, number>();
  let bytesSent = 0;

  const answer = (method: string, path: string, h: Map<string, string>): Reply => {
    const range = h.get("range") ?? null;
    const ifRange = h.get("if-range") ?? null;
    log.push({ path, range, ifRange, authorization: h.get("authorization") ?? null });
    const json = (status: number, v: unknown): Reply => ({ status, headers: { "content-type": "application/json" }, body: new TextEncoder().encode(JSON.stringify(v)) });
    if (path.startsWith("/api/models/")) {
      const siblings = repos[path.slice("/api/models/".length)];
      return siblings ? json(200, { siblings: siblings.map((rfilename) => ({ rfilename })) }) : json(404, { error: "Repository not found" });
    }
    const cdn = path.startsWith("/cdn/");
    const name = cdn ? path.slice(4) : path;
    const file = files[name];
    if (!file) return { status: 404, headers: {}, body: new TextEncoder().encode("not found") };
    const size = file.body.length;
    if (file.hfRedirect && !cdn) {
      const headers: Record<string, string> = { location: `/cdn${name}`, "x-linked-size": String(size) };
      if (file.hfRedirect.linkedEtag) headers["x-linked-etag"] = `"${file.hfRedirect.linkedEtag}"`;
      return { status: 302, headers, body: new Uint8Array(0) };
    }
    const headers: Record<string, string> = { "accept-ranges": "bytes", "content-type": "application/octet-stream" };
    if (file.etag) headers.etag = `"${file.etag}"`;
    const m = /^bytes=(\d+)-$/.exec(range ?? "");
    const honour = m && !file.ignoreRange && (!ifRange || ifRange === headers.etag);
    let start = 0;
    if (honour) {
      start = Number(m[1]);
      if (start >= size) return { status: 416, headers: { "content-range": `bytes */${size}` }, body: new Uint8Array(0) };
      headers["content-range"] = `bytes ${start}-${size - 1}/${size}`;
    }
    const body = method === "HEAD" ? new Uint8Array(0) : file.body.subarray(start);
    const dropped = drops.get(name) ?? 0;
    let cut: number | undefined;
    if (file.dropAfter && dropped < file.dropAfter.times) {
      drops.set(name, dropped + 1);
      cut = Math.min(file.dropAfter.bytes, body.length);
    }
    return { status: honour ? 206 : 200, headers: { ...headers, "content-length": String(size - start) }, body, cut };
  };

  const server = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.data = { buf: "", pending: null, dropAfterMs: 0 };
      },
      data(s, chunk) {
        s.data.buf += new TextDecoder("latin1").decode(chunk);
        const end = s.data.buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const [requestLine, ...lines] = s.data.buf.slice(0, end).split("\r\n");
        const [method, target] = requestLine.split(" ");
        const h = new Map(lines.map((l) => [l.slice(0, l.indexOf(":")).trim().toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
        const r = answer(method, new URL(target, "http://x").pathname, h);
        const head =
          `HTTP/1.1 ${r.status} ${REASONS[r.status] ?? "Status"}\r\n` +
          Object.entries({ "content-length": String(r.body.length), ...r.headers, connection: "close" })
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join("") +
          "\r\n";
        const payload = r.cut === undefined ? r.body : r.body.subarray(0, r.cut);
        bytesSent += payload.length;
        const out = new Uint8Array(head.length + payload.length);
        out.set(new TextEncoder().encode(head));
        out.set(payload, head.length);
        s.data.dropAfterMs = r.cut === undefined ? 0 : 100;
        send(s, out);
      },
      drain(s) {
        if (s.data.pending) send(s, s.data.pending);
      },
    },
  });

  // Writes what the socket takes now, the rest on drain; then closes (every reply is `connection: close`).
  function send(s: Socket<Conn>, bytes: Uint8Array) {
    const n = s.write(bytes);
    if (n < bytes.length) {
      s.data.pending = bytes.subarray(Math.max(0, n));
      return;
    }
    s.data.pending = null;
    if (s.data.dropAfterMs) setTimeout(() => s.end(), s.data.dropAfterMs);
    else s.end();
  }

  return {
    url: `http://127.0.0.1:${server.port}`,
    log,
    get bytesSent() {
      return bytesSent;
    },
    stop: () => server.stop(true),
  };
}
