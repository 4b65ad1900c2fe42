/** The Studio's only door to the server: same-origin fetches with the session cookie and the CSRF header. */
let csrf: string | null = null;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(typeof body?.error === "string" ? body.error : `HTTP ${status}`);
  }
  /** the error line plus its details / message, for display */
  get detail(): string[] {
    const out: string[] = [];
    if (typeof this.body?.message === "string") out.push(this.body.message);
    if (Array.isArray(this.body?.details)) out.push(...this.body.details.map(String));
    return out;
  }
}

let onSignedOut: () => void = () => {};
export function whenSignedOut(fn: () => void) {
  onSignedOut = fn;
}

async function request(method: string, url: string, body?: unknown, raw?: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  const h: Record<string, string> = { accept: "application/json", ...headers };
  if (method !== "GET" && method !== "HEAD" && csrf) h["x-csrf-token"] = csrf;
  let payload: BodyInit | undefined = raw;
  if (body !== undefined) {
    h["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(url, { method, headers: h, body: payload, credentials: "same-origin" });
  if (!res.ok) {
    let parsed: unknown = null;
    try {
      parsed = await res.json();
    } catch {}
    if (res.status === 401 && !url.startsWith("/studio/api/session")) onSignedOut();
    throw new HttpError(res.status, parsed);
  }
  return res;
}

export async function json<T = any>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await request(method, url, body);
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

export const admin = <T = any>(method: string, path: string, body?: unknown) => json<T>(method, `/admin/v1${path}`, body);
export const v1 = <T = any>(projectId: string, method: string, path: string, body?: unknown) =>
  json<T>(method, `/studio/api/projects/${encodeURIComponent(projectId)}/v1${path}`, body);

export async function session(): Promise<boolean> {
  try {
    const s = await json<{ signedIn: boolean; csrfToken?: string }>("GET", "/studio/api/session");
    csrf = s.csrfToken ?? null;
    return s.signedIn;
  } catch {
    csrf = null;
    return false;
  }
}

export async function signIn(token: string): Promise<void> {
  const s = await json<{ csrfToken: string }>("POST", "/studio/api/session", { token });
  csrf = s.csrfToken;
}

export async function signOut(): Promise<void> {
  try {
    await json("DELETE", "/studio/api/session");
  } finally {
    csrf = null;
  }
}

/** A raw request (uploads, SSE) with the CSRF header. */
export function rawFetch(method: string, url: string, body?: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  const h = { ...headers };
  if (csrf && method !== "GET") h["x-csrf-token"] = csrf;
  return fetch(url, { method, headers: h, body, credentials: "same-origin" });
}

/** Reads an SSE response: calls onEvent for each event; resolves at the end. */
export async function readSse(res: Response, onEvent: (event: string, data: any) => void): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      onEvent(event, data ? JSON.parse(data) : null);
    }
  }
}
