import type { AreaHandlers } from "../../../generated/operations.ts";
import { creatorContext, domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { deleteToken, getToken, listTokens, mintToken } from "./tokens.ts";

export const handlers = {
  async list_tokens({ query }, ctx) {
    const { rows, total } = await listTokens(domainContext(ctx), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },

  async create_token({ body }, ctx) {
    return mintToken(
      creatorContext(ctx),
      {
        name: body.name,
        abilities: body.abilities,
        projectIds: body.project_ids ?? null,
        expiresAt: body.expires_at ? new Date(body.expires_at) : null,
      },
      ctx.principal!.abilities,
      ctx.environment,
    );
  },

  async delete_token({ path }, ctx) {
    await deleteToken(domainContext(ctx), path.token_id);
  },

  async get_token({ path }, ctx) {
    return { data: await getToken(domainContext(ctx), path.token_id) };
  },
} satisfies AreaHandlers<OperationContext, "tokens">;
