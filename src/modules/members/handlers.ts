import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { requestAccessSync } from "../connectors/access-sync-request.ts";
import { banMember, unbanMember } from "./ban.ts";
import type { AccessState } from "./access.ts";
import { exportMembers } from "./export.ts";
import type { MemberStatus } from "./tables.ts";
import { getMember, listMembers } from "./members.ts";

/** The list's filters, which the export takes too. */
const memberFilter = (query: { status?: MemberStatus; q?: string; plan_id?: string; platform?: string; access?: AccessState }) => ({
  status: query.status,
  q: query.q,
  planId: query.plan_id,
  platform: query.platform,
  access: query.access,
});

export const handlers = {
  async list_subscribers({ path, query }, ctx) {
    const { rows, total } = await listMembers(domainContext(ctx), path.project, memberFilter(query), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async export_members({ path, query }, ctx) {
    return exportMembers(domainContext(ctx), path.project, { ...memberFilter(query), joinedFrom: query.from, joinedTo: query.to });
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
  async sync_member_access({ path }, ctx) {
    return { data: await requestAccessSync(domainContext(ctx), path.project, path.member) };
  },
} satisfies AreaHandlers<OperationContext, "members">;
