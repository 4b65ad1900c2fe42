import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../db/openDatabase.ts";
import { insertMetaIfAbsent, readMeta } from "../db/metaStore.ts";
import { writeTx } from "../db/openDatabase.ts";

const SECRET_KEY = "scanner_upload_secret";

/** The per-install HMAC key, created on first use (kept in meta: whoever can read the DB owns the data anyway). */
export function uploadSecret(db: Db): Buffer {
  let hex = readMeta(db, SECRET_KEY);
  if (!hex) {
    writeTx(db, () => insertMetaIfAbsent(db, SECRET_KEY, randomBytes(32).toString("hex")));
    hex = readMeta(db, SECRET_KEY)!;
  }
  return Buffer.from(hex, "hex");
}

function sign(secret: Buffer, jobId: string, expires: number): string {
  return createHmac("sha256", secret).update(`scan-upload\n${jobId}\n${expires}`).digest("hex");
}

/** `${publicUrl}/v1/scanner/uploads/<jobId>?expires=<unix s>&signature=<hex HMAC-SHA256>` */
export function signedUploadUrl(db: Db, publicUrl: string, jobId: string, expiresUnix: number): string {
  const signature = sign(uploadSecret(db), jobId, expiresUnix);
  return `${publicUrl}/v1/scanner/uploads/${encodeURIComponent(jobId)}?expires=${expiresUnix}&signature=${signature}`;
}

export type SignatureCheck = "ok" | "invalid" | "expired";

/** Checks the URL's signature in constant time, then its expiry (an expired but genuine URL says so). */
export function checkUploadSignature(
  db: Db,
  clock: Clock,
  jobId: string,
  expires: string | undefined,
  signature: string | undefined,
): SignatureCheck {
  if (!expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[0-9a-f]{64}$/i.test(signature)) return "invalid";
  const expected = Buffer.from(sign(uploadSecret(db), jobId, Number(expires)), "hex");
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) return "invalid";
  return Number(expires) * 1000 < clock.now().getTime() ? "expired" : "ok";
}
