import type { AppHandlers } from "../operations/execute.ts";
import { creatorContext, domainContext } from "../operations/context.ts";
import { listEnvelope, pageWindow } from "../operations/pagination.ts";
import { deleteToken, listTokens, mintToken } from "../domain/tokens.ts";

export const tokenHandlers = {
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
    );
  },

  async delete_token({ path }, ctx) {
    await deleteToken(domainContext(ctx), path.id);
  },
} satisfies Partial<AppHandlers>;
