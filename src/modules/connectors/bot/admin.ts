// Admin commands reachable by a start link (`-check_-<user_id>`, `-ban_-<user_id>`,
// `-ban_-<user_id>_-confirm`): effective only when the platform account that opened the link is
// linked (an identity) to a creator who may act on the project: the team owner, or a member whose
// role or groups grant the command's ability. For anyone else the link opens the home screen.
// <user_id> is the member's account on the platform (what the admin sees in the chat) or the
// member's id.
import { commandStartPayload } from "@subbridge/sdk/connector";
import { unscoped, type DomainContext, type TenantTable } from "../../../db/tenant.ts";
import { banMember } from "../../members/ban.ts";
import { membersTable, type MemberRow } from "../../members/tables.ts";
import { plansTable } from "../../plans/tables.ts";
import { resourcesTable } from "../../resources/tables.ts";
import { teamGrantsOf } from "../../roles/grants.ts";
import { grantsTable, subscriptionsTable, type GrantRow, type SubscriptionRow } from "../../subscriptions/tables.ts";
import type { StartInput } from "./start-input.ts";
import { CREATOR_COMMANDS, type CreatorCommandSpec } from "./bot-commands.ts";
import { UUID } from "../../../uuid.ts";

const COMMANDS: Record<
  string,
  { ability: string; run: (ctx: DomainContext, input: StartInput, member: MemberRow, args: string[]) => Promise<{ text: string; done: boolean }> }
> = {
  check: { ability: "project-user:view", run: check },
  ban: { ability: "project-user:update", run: ban },
};

/** The creator behind the platform account, when they may use `ability` on the project (the Discord bot's /reply asks too). */
export async function adminOf(ctx: DomainContext, input: Pick<StartInput, "installation" | "account">, ability: string): Promise<string | null> {
  const db = unscoped(ctx, "the bot: which creator a platform account is linked to (identities belong to people)");
  const identity = (await db("identities")
    .where({ connector: input.installation.connector_key, account_id: input.account.externalUserId })
    .first("user_id")) as { user_id: string } | undefined;
  if (!identity) return null;
  const grants = await teamGrantsOf(db, identity.user_id, input.installation.team_id);
  if (!grants) return null;
  if (grants.roleAbilities === null) return identity.user_id;
  const onProject = grants.groupGrants.filter((g) => g.projectIds.includes(input.installation.project_id)).flatMap((g) => g.abilities);
  return [...grants.roleAbilities, ...onProject].includes(ability) ? identity.user_id : null;
}

/** The creator commands (bot-commands.ts) the platform account may use on the installation's project, in /help's order. */
export async function commandsAllowed(ctx: DomainContext, input: Pick<StartInput, "installation" | "account">): Promise<CreatorCommandSpec[]> {
  const allowed: CreatorCommandSpec[] = [];
  for (const command of CREATOR_COMMANDS) if (await adminOf(ctx, input, command.ability)) allowed.push(command);
  return allowed;
}

async function memberNamed(ctx: DomainContext, input: StartInput, userId: string): Promise<MemberRow | undefined> {
  const query = membersTable.rows(ctx).where({ project_id: input.installation.project_id });
  if (UUID.test(userId)) query.where((q) => q.where({ id: userId }).orWhere({ external_user_id: userId }));
  else query.where({ connector_key: input.installation.connector_key, external_user_id: userId });
  return (await query.first()) as MemberRow | undefined;
}

/** Runs the command when the account may; null when the link should open the home screen instead. */
export async function runAdminCommand(
  ctx: DomainContext,
  input: StartInput,
  name: string,
  args: string[],
): Promise<{ text: string; done: boolean } | null> {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name]! : null;
  if (!command || args.length === 0) return null;
  const adminId = await adminOf(ctx, input, command.ability);
  if (!adminId) return null;
  const member = await memberNamed(ctx, input, args[0]!);
  if (!member) return { text: `No member ${args[0]} in this project.`, done: false };
  // The admin is the causer of what the command changes.
  return command.run({ ...ctx, actor: { ...ctx.actor, userId: adminId } }, input, member, args.slice(1));
}

/** One column of the rows with these ids, by id (plan names, resource titles). */
export async function labelsById(ctx: DomainContext, table: TenantTable, column: string, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = (await table
    .rows(ctx)
    .whereIn("id", [...ids])
    .select("id", column)) as Record<string, string>[];
  return new Map(rows.map((r) => [r.id!, r[column]!]));
}

const name = (member: MemberRow) => member.display_name ?? member.external_user_id ?? member.id;
const day = (at: Date | null) => (at ? new Date(at).toISOString().slice(0, 10) : "no end");

async function check(ctx: DomainContext, _input: StartInput, member: MemberRow): Promise<{ text: string; done: boolean }> {
  const subscriptions = (await subscriptionsTable
    .rows(ctx)
    .where({ member_id: member.id })
    .orderBy("created_at", "desc")
    .limit(5)
    .select("*")) as SubscriptionRow[];
  const plans = await labelsById(
    ctx,
    plansTable,
    "name",
    subscriptions.map((s) => s.plan_id),
  );
  const grants = (await grantsTable
    .rows(ctx)
    .where({ member_id: member.id })
    .whereNot({ status: "revoked" })
    .orderBy("created_at")
    .select("*")) as GrantRow[];
  const titles = await labelsById(
    ctx,
    resourcesTable,
    "title",
    grants.map((g) => g.resource_id),
  );

  const lines = [
    `${name(member)}: ${member.status}`,
    ...(subscriptions.length ? subscriptions.map((s) => `• ${plans.get(s.plan_id)}: ${s.status}, until ${day(s.ends_at)}`) : ["• no subscriptions"]),
    ...grants.map((g) => `• ${titles.get(g.resource_id)}: ${g.status}`),
  ];
  return { text: lines.join("\n"), done: true };
}

async function ban(ctx: DomainContext, input: StartInput, member: MemberRow, args: string[]): Promise<{ text: string; done: boolean }> {
  if (args[0] !== "confirm") {
    const confirm = `${input.installation.bot_url}?start=${commandStartPayload("ban", [member.id, "confirm"])}`;
    return { text: `Ban ${name(member)}? This revokes their invite links and removes them from every resource.\nConfirm: ${confirm}`, done: false };
  }
  await banMember(ctx, input.installation.project_id, member.id, { reason: "banned from the bot" });
  return { text: `${name(member)} is banned.`, done: true };
}
