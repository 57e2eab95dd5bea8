// Raising a creator alert (rule 5): the one routing function (account/alert-routing.ts) decides
// where it goes, and each destination gets it durably in the caller's transaction: a bot message
// to each routed connected account (sent by the bot message worker within the connector's pacing)
// and a mail (sent by the mail worker). Alerts belong to people: they are read and written without
// tenant filters, naming why; a project's alert goes to the team's owner and admins.
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { routeAlert, type AlertClass, type RoutableDestination } from "../account/alert-routing.ts";
import { queueBotMessage } from "../bot-messages/outbox.ts";
import { APPLICATION_BOT_CONNECTORS } from "../connectors/drivers/index.ts";
import { platformName } from "../connectors/platform-name.ts";
import { queueMailAt, queueMailWith } from "../mail/outbox.ts";
import { PRODUCT_NAME } from "../mail/render.ts";
import { ownLinks } from "./links.ts";

export interface Alert {
  class: AlertClass;
  /** One line: the mail's subject and the bot message's first line. */
  title: string;
  /** What happened and what to do, in plain text (links to our pages become clickable in mail: links.ts, ownLinks). */
  body: string;
  /** The team and project it is about; absent for the creator's own account. */
  teamId?: string | null;
  projectId?: string | null;
  /** Names the alert: raising it again for the same creator changes nothing. */
  dedupeKey?: string;
}

/** Whom an alert goes to: named creators, or the owner and admins of a team. */
export type AlertAudience = { userIds: readonly string[] } | { team: string };

const people = (from: DomainContext | Db) => unscoped(from, "alerts are addressed to creators, whatever team raised them");

async function audience(db: Db, to: AlertAudience): Promise<string[]> {
  if ("userIds" in to) return [...new Set(to.userIds)];
  const rows = (await db("teams as t")
    .leftJoin("team_members as m", "m.team_id", "t.id")
    .leftJoin("roles as r", "r.id", "m.role_id")
    .where("t.id", to.team)
    .select("t.owner_user_id", "m.user_id", "r.code")) as { owner_user_id: string; user_id: string | null; code: string | null }[];
  const ids = rows.flatMap((r) => [r.owner_user_id, ...(r.user_id && r.code === "admin" ? [r.user_id] : [])]);
  return [...new Set(ids)];
}

interface Identity {
  id: string;
  connector: string;
  account_id: string;
  is_primary: boolean;
}

interface Recipient {
  email: string;
  destinations: { kind: RoutableDestination["kind"]; target: string; classes: RoutableDestination["classes"] }[];
  identities: Identity[];
}

/**
 * A creator's address, alert destinations (in their order) and linked identities, read in one
 * statement: an alert is raised inside its change's transaction, where each round trip counts.
 */
async function recipientOf(db: Db, userId: string): Promise<Recipient | undefined> {
  return (await db("users as u")
    .where("u.id", userId)
    .first(
      "u.email",
      db.raw(
        `coalesce((select json_agg(json_build_object('kind', d.kind, 'target', d.target, 'classes', d.classes) order by d.position) from alert_destinations d where d.user_id = u.id), '[]'::json) as destinations`,
      ),
      db.raw(
        `coalesce((select json_agg(json_build_object('id', i.id, 'connector', i.connector, 'account_id', i.account_id, 'is_primary', i.is_primary) order by i.linked_at, i.id) from identities i where i.user_id = u.id), '[]'::json) as identities`,
      ),
    )) as Recipient | undefined;
}

interface IdentityRoute {
  connector: string;
  account_id: string;
  is_primary: boolean;
  installation: { id: string; team_id: string; project_id: string; connector_key: string } | null;
}

/**
 * The creator's identities, each with the installation whose bot reaches them: the one they linked
 * it through (they have opened that bot), else an active one of the alert's project, else any
 * active one of their teams for that connector.
 */
async function identityRoutes(db: Db, userId: string, projectId: string | null, identities: readonly Identity[]): Promise<IdentityRoute[]> {
  const routes: IdentityRoute[] = [];
  for (const identity of identities) {
    const candidates = db("connector_installations as i")
      .where({ "i.connector_key": identity.connector, "i.status": "active" })
      .where((q) => q.whereNotNull("i.credentials").orWhereIn("i.connector_key", APPLICATION_BOT_CONNECTORS))
      .select("i.id", "i.team_id", "i.project_id", "i.connector_key");
    const linkedThrough = await candidates
      .clone()
      .whereIn("i.id", db("identity_link_tokens").where({ identity_id: identity.id }).select("installation_id"))
      .first();
    const ofProject = projectId ? await candidates.clone().where("i.project_id", projectId).first() : undefined;
    const ofTeams = await candidates
      .clone()
      .whereIn("i.team_id", db("team_members").where({ user_id: userId }).select("team_id"))
      .orderBy("i.created_at")
      .first();
    routes.push({ ...identity, installation: linkedThrough ?? ofProject ?? ofTeams ?? null });
  }
  return routes;
}

/** The alert as a bot message: its title, then its body. */
const botText = (alert: Alert) => `${alert.title}\n\n${alert.body}`;

/**
 * Raises `alert` for each creator of `to`, in the caller's transaction; answers the ids of the alert
 * rows written (none for a creator who already has its dedupe key).
 */
export async function raiseAlert(from: DomainContext | Db, now: Date, to: AlertAudience, alert: Alert): Promise<string[]> {
  const db = people(from);
  const written: string[] = [];
  for (const userId of await audience(db, to)) {
    const user = await recipientOf(db, userId);
    if (!user) continue;
    const id = randomUUID();
    const { destinations } = user;
    const identities = await identityRoutes(db, userId, alert.projectId ?? null, user.identities);
    const route = routeAlert(
      alert.class,
      destinations,
      identities.map((i) => ({ connector: i.connector, accountId: i.account_id, isPrimary: i.is_primary })),
    );
    const reach = (a: { accountId: string }) => identities.find((i) => i.account_id === a.accountId)?.installation ?? null;
    // An account no bot can reach any more (its installation removed) gets the alert by email instead.
    const reached = route.accounts.flatMap((account) => {
      const installation = reach(account);
      return installation ? [{ account, installation }] : [];
    });
    const email = route.email || reached.length < route.accounts.length;
    const alertRow = db("creator_alerts")
      .insert({
        id,
        user_id: userId,
        about_team_id: alert.teamId ?? null,
        about_project_id: alert.projectId ?? null,
        class: alert.class,
        title: alert.title,
        body: alert.body,
        dedupe_key: alert.dedupeKey ?? null,
        sent_to_accounts: JSON.stringify(reached.map(({ account: a }) => ({ connector: a.connector, account_id: a.accountId }))),
        sent_to_email: email,
        created_at: now,
      })
      .onConflict(["user_id", "dedupe_key"])
      .ignore()
      .returning("id");
    // The alert and its mail in one statement: the mail is queued only if the alert was written.
    const inserted = email
      ? await queueMailWith(
          db,
          alertRow,
          { to: mailAddress(destinations, user.email), subject: `${PRODUCT_NAME}: ${alert.title}`, body: alert.body, links: ownLinks(alert.body) },
          now,
        )
      : ((await alertRow) as { id: string }[]);
    if (inserted.length === 0) continue;
    written.push(id);
    for (const { account, installation } of reached) {
      const ctx = createDomainContext(db, systemActor(installation.team_id), now);
      await queueBotMessage(ctx, {
        installation,
        recipient: account.accountId,
        text: botText(alert),
        purpose: "alert",
        subject: { type: "creator_alert", id },
      });
    }
  }
  return written;
}

/** Where a creator's alert mail goes: their email destination, else their account's address. */
const mailAddress = (destinations: readonly { kind: string; target: string }[], accountEmail: string) =>
  destinations.find((d) => d.kind === "email")?.target ?? accountEmail;

/**
 * Alerts whose every bot message failed for good (the creator blocked the bot, their account is
 * gone) and that no mail carried go by mail instead, once, saying why: an alert reaches its creator.
 * `messageIds` are bot messages just settled; answers how many alerts were mailed.
 */
export async function mailAlertsTheBotCouldNotDeliver(from: Db, messageIds: readonly string[], now: Date): Promise<number> {
  if (messageIds.length === 0) return 0;
  const db = people(from);
  const failed = (await db("bot_messages as b")
    .join("creator_alerts as a", "a.id", "b.subject_id")
    .whereIn("b.id", messageIds)
    .where({ "b.subject_type": "creator_alert", "b.status": "failed", "a.sent_to_email": false })
    .select("a.id", "a.user_id", "a.title", "a.body", "b.connector_key", "b.last_error")) as {
    id: string;
    user_id: string;
    title: string;
    body: string;
    connector_key: string;
    last_error: string | null;
  }[];
  let mailed = 0;
  for (const alert of failed) {
    // Another account of the creator may still get it, or already has.
    const pending = await db("bot_messages")
      .where({ subject_type: "creator_alert", subject_id: alert.id })
      .whereNot({ status: "failed" })
      .first("id");
    if (pending) continue;
    // The flag is the claim: of two workers settling the alert's messages at once, one mails it.
    if ((await db("creator_alerts").where({ id: alert.id, sent_to_email: false }).update({ sent_to_email: true })) === 0) continue;
    const user = (await db("users").where({ id: alert.user_id }).first("email")) as { email: string } | undefined;
    if (!user) continue;
    const destinations = (await db("alert_destinations").where({ user_id: alert.user_id }).orderBy("position")) as { kind: string; target: string }[];
    const refusal = alert.last_error ? `: ${alert.last_error.replace(/\.$/, "")}` : "";
    const why = `This alert comes by email: the bot could not reach your ${platformName(alert.connector_key)} account${refusal}.`;
    await queueMailAt(
      db,
      {
        to: mailAddress(destinations, user.email),
        subject: `${PRODUCT_NAME}: ${alert.title}`,
        body: `${alert.body}\n\n${why}`,
        links: ownLinks(alert.body),
      },
      now,
    );
    mailed++;
  }
  return mailed;
}
