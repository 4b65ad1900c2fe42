import { Elysia, t } from "elysia";
import type { ServiceContext } from "../../core/context.ts";
import { ApiError } from "../../core/errors.ts";
import { cardToPng, exportCard } from "../../cards/exportCard.ts";
import { INVALID_CARD } from "../../cards/cardTypes.ts";
import { importCardBytes } from "../../cards/importCard.ts";
import { PNG_LIMITS } from "../../cards/png/readPngText.ts";
import { projectParam } from "../adminGuard.ts";
import { adminDetail } from "./crud.ts";

/** SillyTavern cards and lorebooks in and out (docs/authoring-lore.md, "Import from SillyTavern"). */
export function cardRoutes(ctx: ServiceContext) {
  return new Elysia({ name: "admin-cards" })
    .post(
      "/projects/:projectId/import/card",
      async ({ params, query, request }) => {
        const projectId = projectParam(ctx, params.projectId);
        const declared = Number(request.headers.get("content-length") ?? 0);
        if (declared > PNG_LIMITS.fileBytes) throw tooLarge();
        const bytes = new Uint8Array(await request.arrayBuffer());
        if (bytes.length > PNG_LIMITS.fileBytes) throw tooLarge();
        if (bytes.length === 0) throw new ApiError(400, INVALID_CARD, { details: ["body: empty (send the card's PNG or JSON bytes)"] });
        return importCardBytes(ctx, bytes, { projectId, mindId: query.mind || undefined });
      },
      {
        parse: "none",
        params: t.Object({ projectId: t.String() }),
        query: t.Object({ mind: t.Optional(t.String({ description: "a lorebook only: the mind that sees its entries" })) }),
        detail: adminDetail(
          "Import a SillyTavern Character Card (V1/V2/V3 as PNG or JSON, body = the file's bytes) or a lorebook (V3 lorebook, character_book or World Info JSON); idempotent",
        ),
      },
    )
    .get(
      "/projects/:projectId/minds/:id/card",
      ({ params, query }) => {
        const projectId = projectParam(ctx, params.projectId);
        const card = exportCard(ctx, projectId, params.id);
        if ((query.format ?? "json") === "json") return card;
        const file = `${card.data.name.replace(/[^\p{L}\p{N} _-]+/gu, "").trim() || "card"}.png`;
        return new Response(cardToPng(card), {
          headers: { "content-type": "image/png", "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(file)}` },
        });
      },
      {
        params: t.Object({ projectId: t.String(), id: t.String() }),
        query: t.Object({ format: t.Optional(t.Union([t.Literal("json"), t.Literal("png")])) }),
        detail: adminDetail("A mind and the lore it sees as a Character Card V2 (JSON, or a PNG with the card in its chara chunk)"),
      },
    );
}

function tooLarge(): ApiError {
  return new ApiError(400, INVALID_CARD, { details: [`body: larger than ${PNG_LIMITS.fileBytes} bytes`] });
}
