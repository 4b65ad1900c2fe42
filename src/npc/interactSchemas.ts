import { t } from "elysia";
import { Nullable } from "../http/commonSchemas.ts";
import { InteractBody } from "./interactModel.ts";
import { TurnBehaviourSchema } from "../behaviour/behaviourSchemas.ts";

/** Swagger: the interact body's one model (validateInteract applies it in the spec's order of precedence). */
export const InteractBodyDoc = InteractBody;

export const InteractResponseDoc = t.Object({
  success: t.Literal(true),
  response: t.String(),
  character: t.String(),
  metadata: t.Object({
    memoryCheckpoint: t.Optional(t.Boolean()),
    warnings: t.Optional(t.Array(t.String())),
    creditsUsed: t.Optional(t.Number()),
    behaviour: t.Optional(TurnBehaviourSchema),
  }),
});

export { Nullable };
