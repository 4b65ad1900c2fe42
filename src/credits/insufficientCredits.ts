import { ApiError } from "../core/errors.ts";
import { microToCredits } from "./prices.ts";

/**
 * 402 `Insufficient credits` (spec Errors): `creditsNeeded` is the amount the
 * operation asked for and `credits` what the team has available, both in credits.
 */
export function insufficientCredits(neededMicro: number, availableMicro: number): ApiError {
  const creditsNeeded = microToCredits(neededMicro);
  const credits = microToCredits(Math.max(0, availableMicro));
  return new ApiError(402, "Insufficient credits", {
    message: `This operation needs ${creditsNeeded} credits but the team has ${credits} available.`,
    creditsNeeded,
    credits,
  });
}
