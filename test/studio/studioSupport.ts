import { ensureAdminToken } from "../../src/admin/adminToken.ts";
import type { TestApp } from "../support/testApp.ts";

export interface Signed {
  cookie: string;
  csrf: string;
}

/** Signs in through the real endpoint; returns the cookie pair and the CSRF token. */
export async function signIn(t: TestApp): Promise<Signed> {
  const token = ensureAdminToken(t.app.db).adminToken;
  const r = await t.call("POST", "/studio/api/session", { body: { token } });
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${JSON.stringify(r.body)}`);
  const cookie = r.headers.get("set-cookie")!.split(";")[0];
  return { cookie, csrf: r.body.csrfToken };
}

/** A call as the Studio makes it: the cookie, and the CSRF header on writes. */
export function asStudio(t: TestApp, s: Signed) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.call(method, path, { body, headers: { cookie: s.cookie, ...(method === "GET" ? {} : { "x-csrf-token": s.csrf }), ...headers } });
}
