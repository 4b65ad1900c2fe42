import { createHmac } from "node:crypto";

/**
 * A player id as a recorded candidate keeps it: HMAC-SHA-256 under the project's own salt. The id cannot be read
 * back, nor matched across projects, yet erasing the player finds their candidates by the same hash.
 */
export function playerHash(salt: string, playerId: string): string {
  return createHmac("sha256", salt).update(playerId).digest("hex");
}
