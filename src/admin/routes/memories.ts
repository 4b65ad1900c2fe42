import { Elysia } from "elysia";
import type { AppContext } from "../../app/App.ts";

/** A player's memories: list, export, erase (the right to be forgotten). */
export function memoryRoutes(_ctx: AppContext) {
  return new Elysia({ name: "admin-memories" });
}
