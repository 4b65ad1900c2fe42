import { connect } from "node:net";

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** the JSON body, when it is JSON */
  json: any;
}

/**
 * One HTTP/1.1 exchange over a real socket, bytes exactly as given: no client normalises the path
 * (fetch would resolve `..` before sending). `body` may be a string, bytes, or a generator of chunks
 * (written as chunked transfer encoding until the server answers or closes).
 */
export function rawRequest(
  port: number,
  head: string,
  body: string | Uint8Array | Iterable<Uint8Array> = "",
  opts: { waitMs?: number } = {},
): Promise<RawReply | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const parts: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(parts).toString("utf8")));
    };
    const timer = setTimeout(finish, opts.waitMs ?? 15_000);
    socket.on("data", (d) => {
      parts.push(d);
      const text = Buffer.concat(parts).toString("utf8");
      const reply = parse(text);
      if (reply && (reply.headers["content-length"] === undefined || Buffer.byteLength(reply.body) >= Number(reply.headers["content-length"]))) finish();
    });
    socket.on("close", finish);
    socket.on("error", (e) => (/ECONNRESET|EPIPE/.test(e.message) ? finish() : reject(e)));
    socket.write(head);
    if (typeof body === "string" || body instanceof Uint8Array) {
      if (body.length) socket.write(body);
      return;
    }
    const it = body[Symbol.iterator]();
    // One chunk at a time, each written before the next: the reply (sent while the body is still
    // coming) is read as soon as it arrives, before the server's close could reset the connection.
    const pump = () => {
      if (done || socket.destroyed) return;
      const n = it.next();
      if (n.done) return void socket.write("0\r\n\r\n");
      socket.write(`${n.value.length.toString(16)}\r\n`);
      socket.write(n.value);
      socket.write("\r\n", () => setImmediate(pump));
    };
    pump();
  });
}

function parse(text: string): RawReply | null {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(":");
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers["transfer-encoding"] === "chunked") body = unchunk(body);
  let json: unknown = undefined;
  try {
    json = JSON.parse(body);
  } catch {}
  return { status, headers, body, json };
}

function unchunk(s: string): string {
  let out = "";
  for (;;) {
    const nl = s.indexOf("\r\n");
    if (nl < 0) return out;
    const n = parseInt(s.slice(0, nl), 16);
    if (!n) return out;
    out += s.slice(nl + 2, nl + 2 + n);
    s = s.slice(nl + 4 + n);
  }
}

/** A request head: method, raw path, headers (Host and Connection: close added). */
export function head(method: string, path: string, headers: Record<string, string> = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: localhost", "Connection: close", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return lines.join("\r\n") + "\r\n\r\n";
}

/** Resident set size now, in MB, after a collection. */
export function rssMb(): number {
  Bun.gc(true);
  return process.memoryUsage().rss / 1024 / 1024;
}
