import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { deleteAccessCode, generateAccessCodes, listAccessCodes } from "./codes.ts";

export const handlers = {
  async list_access_codes({ path, query }, ctx) {
    const { rows, total } = await listAccessCodes(domainContext(ctx), path.project, path.plan, { status: query.status }, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async bulk_generate_access_codes({ path, body }, ctx) {
    return { data: await generateAccessCodes(domainContext(ctx), path.project, path.plan, body) };
  },
  async delete_access_code({ path }, ctx) {
    await deleteAccessCode(domainContext(ctx), path.project, path.plan, path.access_code);
  },
} satisfies AreaHandlers<OperationContext, "access-codes">;
