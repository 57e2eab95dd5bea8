import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { banMember, unbanMember } from "./ban.ts";
import { getMember, listMembers } from "./members.ts";

export const handlers = {
  async list_subscribers({ path, query }, ctx) {
    const { rows, total } = await listMembers(domainContext(ctx), path.project, { status: query.status }, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async get_member({ path }, ctx) {
    return { data: await getMember(domainContext(ctx), path.project, path.member) };
  },
  async ban_member({ path, body }, ctx) {
    return { data: await banMember(domainContext(ctx), path.project, path.member, { reason: body?.reason ?? null }) };
  },
  async unban_member({ path }, ctx) {
    return { data: await unbanMember(domainContext(ctx), path.project, path.member) };
  },
} satisfies AreaHandlers<OperationContext, "members">;
