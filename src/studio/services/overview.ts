import type { AppContext } from "../../core/context.ts";
import { showCredits } from "../../credits/creditsView.ts";
import { getProject } from "../../projects/projectService.ts";

const count = (ctx: AppContext, sql: string, ...args: string[]): number => ctx.db.query<{ n: number }, string[]>(sql).get(...args)?.n ?? 0;

/** The project page's figures: what is in it, how busy it was, its credits and the model. */
export function projectOverview(ctx: AppContext, projectId: string) {
  const project = getProject(ctx, projectId);
  const since = new Date(ctx.clock.now().getTime() - 24 * 3600_000).toISOString();
  const byStatus = Object.fromEntries(
    ctx.db
      .query<{ status: string; n: number }, [string]>("SELECT status, COUNT(*) AS n FROM documents WHERE project_id = ? GROUP BY status")
      .all(projectId)
      .map((r) => [r.status, r.n]),
  );
  const documents = { PENDING: 0, PROCESSING: 0, COMPLETED: 0, FAILED: 0, ...byStatus } as Record<string, number>;
  return {
    project,
    counts: {
      minds: count(ctx, "SELECT COUNT(*) AS n FROM entity_minds WHERE project_id = ?", projectId),
      documents: Object.values(documents).reduce((a, b) => a + b, 0),
      chunks: count(ctx, "SELECT COUNT(*) AS n FROM chunks WHERE project_id = ?", projectId),
      tags: count(ctx, "SELECT COUNT(*) AS n FROM tags WHERE project_id = ?", projectId),
      locations: count(ctx, "SELECT COUNT(*) AS n FROM locations WHERE project_id = ?", projectId),
      relationships: count(ctx, "SELECT COUNT(*) AS n FROM relationships WHERE project_id = ?", projectId),
      activeKeys: count(ctx, "SELECT COUNT(*) AS n FROM api_keys WHERE project_id = ? AND revoked_at IS NULL", projectId),
      players: count(
        ctx,
        "SELECT COUNT(*) AS n FROM (SELECT player_id FROM sessions WHERE project_id = ? UNION SELECT player_id FROM memories WHERE project_id = ?)",
        projectId,
        projectId,
      ),
      memories: count(ctx, "SELECT COUNT(*) AS n FROM memories WHERE project_id = ?", projectId),
      scanJobs: count(ctx, "SELECT COUNT(*) AS n FROM scan_jobs WHERE project_id = ?", projectId),
    },
    documentsByStatus: documents,
    documentsIndexing: documents.PENDING + documents.PROCESSING,
    interactionsLast24h: count(
      ctx,
      "SELECT COUNT(*) AS n FROM credit_reservations WHERE project_id = ? AND purpose = 'interaction' AND status = 'settled' AND created_at >= ?",
      projectId,
      since,
    ),
    credits: showCredits(ctx, projectId),
    model: ctx.modelStatus,
  };
}
