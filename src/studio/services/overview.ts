import type { AppContext } from "../../core/context.ts";
import { showCredits } from "../../credits/creditsView.ts";
import { getProject } from "../../projects/projectService.ts";
import { keysOfProject } from "../../auth/apiKeyStore.ts";
import { safeUrl } from "../../generation/backendsConfig.ts";
import { noModelOptions } from "../../models/noModelAdvice.ts";
import { countProjectRows, documentStatusCounts, playerCount, settledInteractionTimes } from "../studioReadStore.ts";

/** The project page's figures: what is in it, how busy it was, its credits and the model. */
export function projectOverview(ctx: AppContext, projectId: string) {
  const project = getProject(ctx, projectId);
  const since = new Date(ctx.clock.now().getTime() - 24 * 3600_000).toISOString();
  const documents = { PENDING: 0, PROCESSING: 0, COMPLETED: 0, FAILED: 0, ...documentStatusCounts(ctx.db, projectId) } as Record<string, number>;
  const n = (table: Parameters<typeof countProjectRows>[1]) => countProjectRows(ctx.db, table, projectId);
  return {
    project,
    counts: {
      minds: n("entity_minds"),
      documents: Object.values(documents).reduce((a, b) => a + b, 0),
      chunks: n("chunks"),
      tags: n("tags"),
      locations: n("locations"),
      relationships: n("relationships"),
      activeKeys: keysOfProject(ctx.db, projectId).filter((k) => !k.revoked_at).length,
      players: playerCount(ctx.db, projectId),
      memories: n("memories"),
      scanJobs: n("scan_jobs"),
    },
    documentsByStatus: documents,
    documentsIndexing: documents.PENDING + documents.PROCESSING,
    interactionsLast24h: settledInteractionTimes(ctx.db, projectId, since).length,
    credits: showCredits(ctx, projectId),
    model: ctx.modelStatus,
    // without a model, the same ways out the terminal prints (the playground shows them)
    modelAdvice: ctx.modelStatus.state === "loaded" || ctx.modelStatus.state === "remote" ? [] : noModelOptions(ctx.config.modelsDir),
    // where replies are generated; with a remote pool, each backend's state (docs/models-and-performance.md, "Remote generation")
    generation: {
      mode: ctx.config.generation,
      backends: (ctx.generation?.status() ?? []).map((b) => (b.kind === "local" ? b : { ...b, url: safeUrl(b.url) })),
    },
  };
}
