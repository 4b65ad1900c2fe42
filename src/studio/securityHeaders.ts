/**
 * Headers of every Studio response. The CSP allows only the Studio's own
 * files and API (no inline script or style, no eval, nothing fetched from
 * elsewhere): lore, scanned text and player text are untrusted, and even a
 * sanitiser slip could not run script. The Studio may not be framed.
 */
export const STUDIO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const STUDIO_SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": STUDIO_CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};
