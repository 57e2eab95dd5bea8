// Standby (issue 46): what a probe's verdict sets going when the setting names a stand-in. A lost
// account (token revoked, bot banned) with a standby installation whose bot answers: the standby
// takes over (connector_installations.taken_over_by, read by acting-installation.ts), each member
// with a live grant hears of the new bot from it, and the creator is alerted with the counts. A
// lost place protected by a standby pair: its members are granted the standby place (the sweep
// sends the links) and the pair is marked switched. Each happens once: a conditional update.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { createDomainContext, systemActor, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { raiseAlert } from "../alerts/raise.ts";
import { queueBotMessage } from "../bot-messages/outbox.ts";
import { phrase } from "../bot-messages/phrases.ts";
import { actingAs } from "../connectors/acting-installation.ts";
import type { AccessSyncEnvironment } from "../connectors/access-sync.ts";
import { installationSession } from "../connectors/bot/session.ts";
import { PlatformError, type ProbeResult } from "../connectors/drivers/driver.ts";
import { platformName } from "../connectors/platform-name.ts";
import { installationsTable, type InstallationRow } from "../connectors/tables.ts";
import { emitEvent } from "../events/outbox.ts";
import { resourcesTable } from "../resources/tables.ts";
import { grantsTable, LIVE_GRANT_STATUSES, PLATFORM_FAILURES_CLEARED } from "../subscriptions/tables.ts";
import { resourceStandbysTable, type RecoverySettingRow } from "./tables.ts";

/** The modes a connector fulfils on the platform: the grants a stand-in carries on. */
const PLATFORM_MODES = ["bearer_link", "membership", "role"];

/** A probe's words for a place that is gone rather than mis-set (chat deleted, bot thrown out, channel or role deleted). */
const LOST_PLACE = /chat not found|not in the chat|kicked|no longer exists|no longer in the/i;

export const placeLost = (reason: string | undefined) => reason !== undefined && LOST_PLACE.test(reason);

export interface StandbyInput {
  setting: RecoverySettingRow & { installation: InstallationRow; project_name: string };
  result: ProbeResult;
  now: Date;
}

/** What a verdict set going: 1 per takeover or switched pair. */
export async function useStandbys(db: Db, env: AccessSyncEnvironment, input: StandbyInput, logger?: Logger): Promise<number> {
  let done = 0;
  if (!input.result.account.ok && input.setting.standby_installation_id && !input.setting.installation.taken_over_by)
    done += (await takeOver(db, env, input, logger)) ? 1 : 0;
  if (input.result.account.ok && input.setting.installation.taken_over_by) done += (await handBack(db, input)) ? 1 : 0;
  const lost = input.result.places.filter((p) => !p.ok && placeLost(p.reason)).map((p) => p.place);
  if (lost.length) done += await switchPlaces(db, input, lost);
  return done;
}

/** The standby installation when its bot answers (a platform call, outside any transaction), else null. */
async function answeringStandby(db: Db, env: AccessSyncEnvironment, input: StandbyInput, logger?: Logger): Promise<InstallationRow | null> {
  const { setting } = input;
  const standby = (await unscoped(
    db,
    "recovery: the standby installation, of the setting's team",
  )("connector_installations")
    .where({ id: setting.standby_installation_id!, team_id: setting.team_id, connector_key: setting.connector_key, status: "active" })
    .whereNull("taken_over_by")
    .first()) as InstallationRow | undefined;
  if (!standby) return null;
  try {
    const probe = await installationSession(env, standby).probe([], { roles: [] });
    return probe.account.ok ? standby : null;
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    logger?.warn({ installation_id: standby.id, kind: err.kind, err: err.message }, "standby installation did not answer; no takeover");
    return null;
  }
}

interface Holder {
  member_id: string;
  user: string;
  titles: string[];
}

/** The members holding live platform grants of the connector in the project, with the titles they hold. */
async function holders(ctx: DomainContext, setting: RecoverySettingRow): Promise<Holder[]> {
  const rows = (await grantsTable
    .rows(ctx)
    .join("resources as r", "r.id", "access_grants.resource_id")
    .join("members as m", "m.id", "access_grants.member_id")
    .where({ "access_grants.project_id": setting.project_id, "r.connector_key": setting.connector_key, "m.connector_key": setting.connector_key })
    .whereIn("access_grants.status", [...LIVE_GRANT_STATUSES])
    .whereIn("access_grants.grant_mode", PLATFORM_MODES)
    .whereNotNull("m.external_user_id")
    .whereNot("m.status", "banned")
    .orderBy([{ column: "m.id" }, { column: "r.title" }])
    .select("m.id as member_id", "m.external_user_id as user", "r.title")) as { member_id: string; user: string; title: string }[];
  const byMember = new Map<string, Holder>();
  for (const row of rows) {
    const holder = byMember.get(row.member_id) ?? { member_id: row.member_id, user: row.user, titles: [] };
    if (!holder.titles.includes(row.title)) holder.titles.push(row.title);
    byMember.set(row.member_id, holder);
  }
  return [...byMember.values()];
}

/** The standby takes over once: the conditional update decides between probes racing. */
async function takeOver(db: Db, env: AccessSyncEnvironment, input: StandbyInput, logger?: Logger): Promise<boolean> {
  const standby = await answeringStandby(db, env, input, logger);
  if (!standby) return false;
  const { setting, now } = input;
  return db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, systemActor(setting.team_id), now);
    const took = await installationsTable
      .rows(ctx)
      .where({ id: setting.installation_id })
      .whereNull("taken_over_by")
      .update({ taken_over_by: standby.id, taken_over_at: now });
    if (took === 0) return false;
    const acting = actingAs(setting.installation, standby);
    const members = await holders(ctx, setting);
    for (const member of members)
      await queueBotMessage(ctx, {
        installation: acting,
        recipient: member.user,
        phrases: [
          phrase(
            "{project} now reaches you through {bot}: the previous bot stopped working. Your access ({resources}) stays; new invite links come from this bot.",
            {
              project: setting.project_name,
              bot: acting.bot_url ?? "",
              resources: member.titles.join(", "),
            },
          ),
        ],
        purpose: "notice",
        subject: { type: "member", id: member.member_id },
        dedupeKey: `standby-takeover:${setting.installation_id}:${member.member_id}:${now.toISOString()}`,
      });
    const places = (await resourcesTable
      .rows(ctx)
      .where({ project_id: setting.project_id, connector_key: setting.connector_key, active: true })
      .whereNotNull("platform_ref")
      .whereIn("grant_mode", PLATFORM_MODES)
      .count({ n: "*" })
      .first()) as { n: number | string };
    const moved = { members: members.length, resources: Number(places.n) };
    const platform = platformName(setting.connector_key);
    const bot = standby.platform_account_name ? `@${standby.platform_account_name}` : "the standby bot";
    await record(ctx, setting, {
      kind: "installation",
      standby_installation_id: standby.id,
      resource_id: null,
      standby_resource_id: null,
      members_moved: moved.members,
      resources_moved: moved.resources,
      description: `The standby ${platform} installation ${standby.id} took over from ${setting.installation_id}`,
      alert: {
        title: `${setting.project_name}: the standby ${platform} bot took over`,
        body: [
          `The ${platform} bot of ${setting.project_name} stopped working (${input.result.account.reason ?? "refused"}), so the standby installation's bot ${bot}${standby.bot_url ? ` (${standby.bot_url})` : ""} took over.`,
          "",
          `Moved: ${moved.resources} places now run through ${bot}; ${moved.members} members with access were told of the new bot.`,
          `Make sure ${bot} is an administrator of each place with the rights to invite and ban users.`,
        ].join("\n"),
      },
    });
    return true;
  });
}

/** The project's own bot works again (a new token): it sends again, once; members hear of it from it. */
async function handBack(db: Db, input: StandbyInput): Promise<boolean> {
  const { setting, now } = input;
  const standbyId = setting.installation.taken_over_by!;
  return db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, systemActor(setting.team_id), now);
    const back = await installationsTable
      .rows(ctx)
      .where({ id: setting.installation_id, taken_over_by: standbyId })
      .update({ taken_over_by: null, taken_over_at: null });
    if (back === 0) return false;
    const own = { ...setting.installation, taken_over_by: null };
    const members = await holders(ctx, setting);
    for (const member of members)
      await queueBotMessage(ctx, {
        installation: own,
        recipient: member.user,
        phrases: [
          phrase("{project} reaches you through {bot} again. Your access ({resources}) stays.", {
            project: setting.project_name,
            bot: own.bot_url ?? "",
            resources: member.titles.join(", "),
          }),
        ],
        purpose: "notice",
        subject: { type: "member", id: member.member_id },
        dedupeKey: `standby-handback:${setting.installation_id}:${member.member_id}:${now.toISOString()}`,
      });
    const platform = platformName(setting.connector_key);
    await record(ctx, setting, {
      kind: "handed_back",
      standby_installation_id: standbyId,
      resource_id: null,
      standby_resource_id: null,
      members_moved: members.length,
      resources_moved: 0,
      description: `The ${platform} installation ${setting.installation_id} works again and took the sending back from ${standbyId}`,
      alert: {
        title: `${setting.project_name}: your ${platform} bot works again`,
        body: `The recovery probe found the ${platform} bot of ${setting.project_name} working again, so it sends for the project again instead of the standby's; ${members.length} members with access were told.`,
      },
    });
    return true;
  });
}

/** Each pair protecting a lost place switches once: its members granted the standby place. */
async function switchPlaces(db: Db, input: StandbyInput, lost: string[]): Promise<number> {
  const { setting, now } = input;
  const pairs = (await unscoped(
    db,
    "recovery: the pairs of a setting being probed",
  )("recovery_resource_standbys as p")
    .join("resources as r", "r.id", "p.resource_id")
    .join("resources as s", "s.id", "p.standby_resource_id")
    .where({ "p.setting_id": setting.id })
    .whereNull("p.switched_at")
    .whereIn("r.platform_ref", lost)
    .where("s.active", true)
    .select("p.id", "p.resource_id", "p.standby_resource_id", "r.title", "s.title as standby_title", "s.grant_mode")) as {
    id: string;
    resource_id: string;
    standby_resource_id: string;
    title: string;
    standby_title: string;
    grant_mode: string;
  }[];
  let switched = 0;
  for (const pair of pairs) {
    const done = await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(setting.team_id), now);
      if ((await resourceStandbysTable.rows(ctx).where({ id: pair.id }).whereNull("switched_at").update({ switched_at: now })) === 0) return false;
      const moved = await grantStandby(ctx, pair);
      await resourceStandbysTable.rows(ctx).where({ id: pair.id }).update({ members_moved: moved });
      await record(ctx, setting, {
        kind: "resource",
        standby_installation_id: null,
        resource_id: pair.resource_id,
        standby_resource_id: pair.standby_resource_id,
        members_moved: moved,
        resources_moved: 1,
        description: `The place of ${pair.title} was lost; its members were granted ${pair.standby_title}`,
        alert: {
          title: `${setting.project_name}: ${pair.title} lost, members moved to ${pair.standby_title}`,
          body: [
            `The recovery probe found the place of ${pair.title} gone, so its standby place ${pair.standby_title} took over.`,
            "",
            `Moved: ${moved} members with access to ${pair.title} were granted ${pair.standby_title}; their invite links follow through the bot.`,
          ].join("\n"),
        },
      });
      return true;
    });
    if (done) switched++;
  }
  return switched;
}

/** A pending grant of the standby resource for each live grant of the lost one (one per subscription); answers the members moved. */
async function grantStandby(ctx: DomainContext, pair: { resource_id: string; standby_resource_id: string; grant_mode: string }) {
  const live = (await grantsTable
    .rows(ctx)
    .where({ resource_id: pair.resource_id })
    .whereIn("status", [...LIVE_GRANT_STATUSES])
    .select("project_id", "subscription_id", "member_id")) as { project_id: string; subscription_id: string; member_id: string }[];
  const already = new Set(
    (await grantsTable
      .rows(ctx)
      .where({ resource_id: pair.standby_resource_id })
      .whereIn("status", [...LIVE_GRANT_STATUSES])
      .pluck("subscription_id")) as string[],
  );
  const members = new Set<string>();
  for (const grant of live) {
    members.add(grant.member_id);
    if (already.has(grant.subscription_id)) continue;
    already.add(grant.subscription_id);
    await grantsTable.insert(ctx, {
      id: randomUUID(),
      ...grant,
      resource_id: pair.standby_resource_id,
      grant_mode: pair.grant_mode,
      status: "pending",
      granted_at: null,
      revoked_at: null,
      platform_synced_at: null,
      ...PLATFORM_FAILURES_CLEARED,
      created_at: ctx.now,
      updated_at: ctx.now,
    });
  }
  return members.size;
}

interface Activation {
  kind: "installation" | "resource" | "handed_back";
  standby_installation_id: string | null;
  resource_id: string | null;
  standby_resource_id: string | null;
  members_moved: number;
  resources_moved: number;
  description: string;
  alert: { title: string; body: string };
}

/** The activity entry, the event and the creator's recovery alert of one activation. */
async function record(ctx: DomainContext, setting: RecoverySettingRow, activation: Activation) {
  const { description, alert, ...moved } = activation;
  const data = { recovery_setting_id: setting.id, installation_id: setting.installation_id, ...moved };
  await recordActivity(ctx, {
    event: "recovery_setting_standby_activated",
    description,
    subjectType: "project",
    subjectId: setting.project_id,
    projectId: setting.project_id,
    properties: data,
  });
  await emitEvent(ctx, { type: "recovery_setting.standby_activated", projectId: setting.project_id, data });
  await raiseAlert(
    ctx,
    ctx.now,
    { team: setting.team_id },
    {
      class: "recovery",
      ...alert,
      teamId: setting.team_id,
      projectId: setting.project_id,
      // The conditional update made this activation once; a later one (a second takeover after a hand-back) is its own alert.
      dedupeKey: `recovery-standby:${setting.installation_id}:${activation.kind}:${activation.resource_id ?? ""}:${ctx.now.toISOString()}`,
    },
  );
}
