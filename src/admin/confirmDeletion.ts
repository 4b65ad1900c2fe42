import { invalidRequest } from "../core/errors.ts";

/**
 * `DELETE /admin/v1/projects/{id}` removes a project and everything in it, so it needs the id twice:
 * `?confirm={id}`. A request that reached the route by accident (a client bug, a path that lost a
 * segment) does not carry it, and is refused with 400 instead of deleting anything.
 */
export function requireDeletionConfirmed(projectId: string, confirm: string | undefined): void {
  if (confirm !== projectId) throw invalidRequest("confirm: must repeat the project id (?confirm=<projectId>) to delete a project");
}
