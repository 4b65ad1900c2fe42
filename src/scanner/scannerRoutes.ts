import { Elysia } from "elysia";
import type { AppContext } from "../app/App.ts";

/** /v1/scanner/* (Editor Key) and the signed upload endpoint behind uploadUrl. */
export function scannerRoutes(_ctx: AppContext) {
  return new Elysia({ name: "scanner-routes" });
}
