import type { AreaHandlers } from "../../../generated/operations.ts";
import { creatorContext, domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { holdsAbility } from "../tokens/abilities.ts";
import { invite, listInvitations, withdrawInvitation } from "./invitations.ts";
import { changeMemberRole, getMembership, removeMember, roster } from "./members.ts";
import { createTeam, deleteTeam, getCurrentTeam, listTeams, updateTeam } from "./teams.ts";

/** Where an invitee accepts: the authorization server's page, with the link's secret. */
const acceptLinks = (ctx: OperationContext) => ({
  acceptUrl: (secret: string) => `${ctx.authUrl}/invitations/accept?token=${encodeURIComponent(secret)}`,
});

export const handlers = {
  async list_teams({ query }, ctx) {
    const { rows, total } = await listTeams(creatorContext(ctx), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_team({ body }, ctx) {
    return { data: await createTeam(creatorContext(ctx), { name: body.name }) };
  },
  async get_current_team(_input, ctx) {
    return { data: await getCurrentTeam(domainContext(ctx)) };
  },
  async get_team(_input, ctx) {
    return { data: await getCurrentTeam(domainContext(ctx)) };
  },
  async update_team({ body }, ctx) {
    return { data: await updateTeam(domainContext(ctx), { name: body.name }) };
  },
  async delete_team(_input, ctx) {
    await deleteTeam(domainContext(ctx));
  },
  async list_team_members(_input, ctx) {
    // The email key is present only when the token may also read one membership's detail.
    const withEmail = holdsAbility(ctx.principal!.abilities, "team-member:view");
    return { data: await roster(domainContext(ctx), withEmail) };
  },
  async invite_team_member({ body }, ctx) {
    return { data: await invite(domainContext(ctx), { email: body.email, role: body.role }, acceptLinks(ctx)) };
  },
  async get_team_member({ path }, ctx) {
    return { data: await getMembership(domainContext(ctx), path.member) };
  },
  async remove_team_member({ path }, ctx) {
    await removeMember(domainContext(ctx), path.member);
  },
  async update_team_member_role({ path, body }, ctx) {
    return { data: await changeMemberRole(domainContext(ctx), path.member, body.role) };
  },
  async list_team_invitations({ query }, ctx) {
    const { rows, total } = await listInvitations(domainContext(ctx), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async withdraw_team_invitation({ path }, ctx) {
    await withdrawInvitation(domainContext(ctx), path.invitation);
  },
} satisfies AreaHandlers<OperationContext, "teams">;
