import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Studio sessions, stateless: the cookie holds `expiry.nonce.mac`, signed
 * with a key derived from the admin token. Changing the admin token ends
 * every session; signing out puts the nonce on a short deny list (kept
 * until the cookie would have expired anyway). The CSRF token is derived
 * from the same nonce, so it cannot be forged without the signing key and
 * is useless without the HttpOnly cookie (double submit, signed).
 */
export const SESSION_COOKIE = "lorehold_studio";
export const CSRF_HEADER = "x-csrf-token";
export const SESSION_TTL_SECONDS = 8 * 3600;

const signedOut = new Map<string, number>();

export interface StudioSession {
  nonce: string;
  expiresAt: number;
  csrf: string;
}

const keyFor = (adminToken: string) => createHmac("sha256", "lorehold-studio-session-v1").update(adminToken).digest();
const mac = (adminToken: string, what: string) => createHmac("sha256", keyFor(adminToken)).update(what).digest("base64url");

export function issueSession(adminToken: string, nowMs: number, ttlSeconds = SESSION_TTL_SECONDS): { cookieValue: string; session: StudioSession } {
  const nonce = randomBytes(18).toString("base64url");
  const expiresAt = nowMs + ttlSeconds * 1000;
  const body = `${expiresAt}.${nonce}`;
  return { cookieValue: `${body}.${mac(adminToken, `session:${body}`)}`, session: { nonce, expiresAt, csrf: mac(adminToken, `csrf:${nonce}`) } };
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The session a cookie value proves, or null (bad signature, expired, signed out). */
export function verifySession(adminToken: string | null, cookieValue: string | null, nowMs: number): StudioSession | null {
  if (!adminToken || !cookieValue) return null;
  const parts = cookieValue.split(".");
  if (parts.length !== 3) return null;
  const [exp, nonce, sig] = parts;
  if (!equal(sig, mac(adminToken, `session:${exp}.${nonce}`))) return null;
  const expiresAt = Number(exp);
  if (!Number.isFinite(expiresAt) || expiresAt <= nowMs) return null;
  if (signedOut.has(nonce)) return null;
  return { nonce, expiresAt, csrf: mac(adminToken, `csrf:${nonce}`) };
}

export function csrfMatches(session: StudioSession, header: string | null): boolean {
  return !!header && equal(header, session.csrf);
}

export function endSession(session: StudioSession, nowMs: number): void {
  for (const [n, exp] of signedOut) if (exp <= nowMs) signedOut.delete(n);
  signedOut.set(session.nonce, session.expiresAt);
}

export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

export const clearedCookie = (secure: boolean) => sessionCookie("", 0, secure);
