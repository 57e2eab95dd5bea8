// A project's connector installations: install (credentials verified with the platform through the
// connector's driver, install fields sealed with APP_KEY bound to the installation's id), read,
// change settings or credentials, uninstall. At most one installation per connector on a project;
// a second distinct connector needs Growth, and Growth runs at most two. Every change writes its
// activity entry on the project and its event; neither ever holds a credential.
// No platform call runs inside the change's transaction: the credentials are verified before it
// opens (the operations' preflights), and pointing a bot's updates here, or stopping them, is a
// platform task the change queues and the process runs after COMMIT (platform-tasks.ts).
import { randomUUID } from "node:crypto";
import { ApiError, domainRefusal, mergeFieldErrors, emptyFieldErrors, addFieldError, validationFailed } from "../../errors.ts";
import { unscoped, type DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { encrypt } from "../../security/crypto.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { alertFirstInstallation } from "../alerts/producers.ts";
import { emitEvent } from "../events/outbox.ts";
import { projectsTable } from "../projects/projects.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { teamTier } from "../teams/tier.ts";
import { installationsTable, type InstallationRow } from "./tables.ts";
import { actingInstallation } from "./acting-installation.ts";
import { credentialsBinding, type ConnectorEnvironment } from "./environment.ts";
import { checkFieldValues, defaultValues, type FieldValue } from "./field-rules.ts";
import { driverFor } from "./drivers/index.ts";
import { queuePlatformTask } from "./platform-tasks.ts";
import { queueCreatorMenus } from "./bot/creator-menus.ts";
import { PlatformError, type ConnectorDriver, type InstallInput, type VerifiedAccount } from "./drivers/driver.ts";
import { uniquely } from "../../db/unique.ts";
import { platformEntryUrl } from "./platform-entry.ts";

/** Growth runs at most this many distinct connectors on one project (below Growth: one). */
export const MAX_CONNECTORS_PER_PROJECT = 2;

export function presentInstallation(row: InstallationRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    connector: row.connector_key,
    status: row.status as "active",
    platform_account_id: row.platform_account_id,
    platform_account_name: row.platform_account_name,
    bot_url: row.bot_url,
    settings: (typeof row.settings === "string" ? JSON.parse(row.settings) : (row.settings ?? {})) as Record<string, FieldValue | null>,
    created_by_user_id: row.created_by_user_id,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export function sealFields(env: ConnectorEnvironment, installationId: string, fields: Record<string, FieldValue>): string | null {
  return Object.keys(fields).length ? encrypt(env.appKey, JSON.stringify(fields), credentialsBinding(installationId)) : null;
}

/** The catalog card a key names, or 404 RESOURCE_NOT_FOUND with reason unknown_connector. */
function cardOf(env: ConnectorEnvironment, key: string) {
  const card = env.connectors.card(key);
  if (!card) {
    throw new ApiError("RESOURCE_NOT_FOUND", `No connector is named "${key}".`, {
      context: { reason: "unknown_connector", connector: key },
      remediation: "Use a key from GET /v1/connectors.",
    });
  }
  return card;
}

export function unavailable(key: string, why: string): ApiError {
  return new ApiError("CONNECTOR_UNAVAILABLE", `The connector ${key} cannot be installed: ${why}.`, { context: { connector: key } });
}

/** The project's installation of `key`: 404 unknown_connector or CONNECTOR_NOT_INSTALLED otherwise. */
export async function installationOf(
  ctx: DomainContext,
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  lock = false,
): Promise<InstallationRow> {
  await assertProjectsVisible(ctx, [projectId]);
  cardOf(env, key);
  const query = installationsTable.rows(ctx).where({ project_id: projectId, connector_key: key });
  const row = (await (lock ? query.forUpdate() : query).first()) as InstallationRow | undefined;
  if (!row) {
    throw new ApiError("CONNECTOR_NOT_INSTALLED", `The project does not run the connector ${key}.`, {
      context: { connector: key, project_id: projectId },
      remediation: `Install it first (POST /v1/projects/${projectId}/connectors/${key}).`,
    });
  }
  return row;
}

/**
 * A bot (an account members open through a bot URL) answers one installation: the platform sends
 * its updates to one place. Another installation's bot is refused, naming the credential.
 */
export async function refuseBotInUse(ctx: DomainContext, key: string, account: VerifiedAccount, except: string | null) {
  if (!account.botUrl && !account.portalEntry) return;
  const other = await unscoped(
    ctx,
    "a bot serves one installation, whichever team installed it first",
  )("connector_installations")
    .where({ connector_key: key, platform_account_id: account.accountId })
    .whereNotNull("bot_url")
    .modify((q) => (except ? q.whereNot({ id: except }) : q))
    .first("id");
  if (other) throw botInUse(account);
}

/** The index behind refuseBotInUse (its migration): two installs of one bot at once. */
export const ONE_BOT_INDEX = "connector_installations_one_bot";
export const botInUse = (account: Pick<VerifiedAccount, "accountName" | "portalEntry">) =>
  validationFailed(
    account.portalEntry
      ? { "oauth.code": [`the server ${account.accountName} is already connected to another project; a server belongs to one project`] }
      : { "fields.bot_token": [`the bot ${account.accountName} is already connected to another project; create a bot for this one`] },
  );

/** A platform step of a change; a refusal or silence of the platform answered as the API answers it. */
export async function onPlatform<T>(key: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    if (err.kind === "unauthorized" && err.field) throw validationFailed({ [err.field]: [err.message] }, "The platform refused the credentials.");
    // A rate limit is an answer to try later, as silence is.
    const reason = {
      unreachable: "platform_unreachable",
      rate_limited: "platform_unreachable",
      not_configured: "platform_not_configured",
      unauthorized: "platform_not_configured",
    }[err.kind as string];
    throw domainRefusal(err.message, { connector: key, reason: reason ?? "platform_refused" });
  }
}

/** The driver's verdict on the credentials, as the API answers a refusal (called before any transaction). */
export function verify(driver: ConnectorDriver, key: string, input: InstallInput): Promise<VerifiedAccount> {
  return onPlatform(key, () => driver.verify(input));
}

const SORT: Record<string, string> = { created_at: "created_at", connector: "connector_key" };

export async function listInstallations(ctx: DomainContext, projectId: string, window: PageWindow) {
  await assertProjectsVisible(ctx, [projectId]);
  const { rows, total } = await sortedPage<InstallationRow>(installationsTable.rows(ctx).where({ project_id: projectId }).select("*"), window, SORT);
  return { rows: rows.map(presentInstallation), total };
}

export async function getInstallation(ctx: DomainContext, env: ConnectorEnvironment, projectId: string, key: string) {
  return presentInstallation(await installationOf(ctx, env, projectId, key));
}

export type Values = Readonly<Record<string, FieldValue | null>>;

export interface InstallBody {
  fields?: Values;
  oauth?: { code: string; redirect_uri: string };
  settings?: Values;
}

/**
 * The refusals that come before the body: availability, one per connector, the tier rule. `lock`
 * (inside the install's transaction) holds the project so they stay true until the insert commits.
 */
async function checkInstallable(ctx: DomainContext, env: ConnectorEnvironment, projectId: string, key: string, lock: boolean) {
  const card = cardOf(env, key);
  if (card.status !== "available") throw unavailable(key, `it is ${card.status.replace("_", " ")}`);
  const pkg = env.connectors.packages.get(key);
  const driver = driverFor(key, env.platforms);
  if (!pkg || !driver) throw unavailable(key, "this release has no driver for it");
  if (lock) await projectsTable.rows(ctx).where({ id: projectId }).forUpdate().first("id");
  const running: string[] = await installationsTable.rows(ctx).where({ project_id: projectId }).pluck("connector_key");
  if (running.includes(key)) {
    throw domainRefusal(`The project already runs the connector ${key}; change it with PATCH or uninstall it first.`, {
      reason: "already_installed",
      connector: key,
      project_id: projectId,
    });
  }
  if (running.length > 0) {
    const tier = await teamTier(ctx);
    if (tier !== "growth") {
      throw new ApiError(
        "CONNECTOR_TIER_REQUIRED",
        `Running a second connector on a project needs the Growth tier; this team's owner is on ${tier}.`,
        {
          context: { connector: key, project_id: projectId, required_tier: "growth", current_tier: tier },
          remediation: "The team's owner can move to Growth in the dashboard's billing settings, or uninstall the other connector first.",
        },
      );
    }
    if (running.length >= MAX_CONNECTORS_PER_PROJECT) {
      throw domainRefusal(`A project runs at most ${MAX_CONNECTORS_PER_PROJECT} connectors.`, {
        reason: "installation_limit",
        connector: key,
        project_id: projectId,
      });
    }
  }
  return { pkg, driver };
}

/** An install checked and its credentials verified by the platform, before its transaction (prepareInstall). */
export class InstallPlan {
  constructor(
    readonly fields: Record<string, FieldValue>,
    readonly settings: Record<string, FieldValue | null>,
    readonly account: VerifiedAccount,
  ) {}

  /** The plan the operation's preflight made (ctx.preflight). */
  static of(preflight: unknown): InstallPlan {
    if (!(preflight instanceof InstallPlan)) throw new Error("install_connector runs after its preflight (prepareInstall)");
    return preflight;
  }
}

/** An install's checks, in the spec's order, and last the platform's verdict on the credentials. */
export async function prepareInstall(
  ctx: DomainContext,
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  body: InstallBody,
): Promise<InstallPlan> {
  await assertProjectsVisible(ctx, [projectId]);
  const { pkg, driver } = await checkInstallable(ctx, env, projectId, key, false);
  const { install } = pkg.manifest;
  const fields = checkFieldValues(install.fields, body.fields ?? {}, "fields");
  const settings = checkFieldValues(install.settings_fields, { ...defaultValues(install.settings_fields ?? []), ...body.settings }, "settings");
  const errors = mergeFieldErrors(mergeFieldErrors(emptyFieldErrors(), fields.errors), settings.errors);
  if (install.mode === "oauth" && !body.oauth) addFieldError(errors, "oauth", `is required: ${pkg.manifest.name} installs through OAuth`);
  if (install.mode !== "oauth" && body.oauth) addFieldError(errors, "oauth", `${pkg.manifest.name} does not install through OAuth`);
  if (Object.keys(errors).length) throw validationFailed(errors);
  const account = await verify(driver, key, { fields: fields.values, oauth: body.oauth ?? null });
  return new InstallPlan(fields.values, settings.values, account);
}

/** The install itself, in its transaction: the checks again under the project's lock, then the writes. */
export async function installConnector(
  ctx: DomainContext & { actor: { userId: string } },
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  plan: InstallPlan,
) {
  await assertProjectsVisible(ctx, [projectId]);
  const { pkg } = await checkInstallable(ctx, env, projectId, key, true);
  const { account } = plan;
  await refuseBotInUse(ctx, key, account, null);
  const id = randomUUID();
  const row: InstallationRow = {
    id,
    team_id: ctx.actor.teamId,
    project_id: projectId,
    connector_key: key,
    status: "active",
    platform_account_id: account.accountId,
    platform_account_name: account.accountName,
    bot_url: account.botUrl ?? (account.portalEntry ? platformEntryUrl(env.portalUrl, { connector_key: key, id }) : null),
    credentials: sealFields(env, id, plan.fields),
    settings: plan.settings,
    created_by_user_id: ctx.actor.userId,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await uniquely(installationsTable.insert(ctx, { ...row, settings: JSON.stringify(row.settings) }), () => botInUse(account), ONE_BOT_INDEX);
  await queuePlatformTask(ctx, env, row, "deliver_updates");
  await queueCreatorMenus(ctx, row);
  const installation = presentInstallation(row);
  await recordActivity(ctx, {
    event: "connector_installed",
    description: `Connector ${pkg.manifest.name} installed (${account.accountName})`,
    subjectType: "project",
    subjectId: projectId,
    projectId,
    properties: { connector: key, installation_id: id, platform_account_name: account.accountName, settings: Object.keys(plan.settings).sort() },
  });
  await emitEvent(ctx, { type: "connector.installed", projectId, data: { installation } });
  await alertFirstInstallation(ctx, row);
  return installation;
}

export async function uninstallConnector(ctx: DomainContext, env: ConnectorEnvironment, projectId: string, key: string) {
  const row = await installationOf(ctx, env, projectId, key);
  await installationsTable.rows(ctx).where({ id: row.id }).delete();
  // After COMMIT, and again later while the platform is down or refuses: a revoked token or a
  // platform down must not keep an installation the creator removes.
  await queuePlatformTask(ctx, env, row, "stop_updates");
  const installation = presentInstallation(row);
  await recordActivity(ctx, {
    event: "connector_uninstalled",
    description: `Connector ${env.connectors.card(key)?.name ?? key} uninstalled`,
    subjectType: "project",
    subjectId: projectId,
    projectId,
    properties: { connector: key, installation_id: row.id },
  });
  await emitEvent(ctx, { type: "connector.uninstalled", projectId, data: { installation } });
}

/** The project's oldest active installation with a bot URL (where deep links open; a standby's once it took over), or undefined. */
export async function attachedBot(ctx: DomainContext, projectId: string): Promise<InstallationRow | undefined> {
  const own = (await installationsTable
    .rows(ctx)
    .where({ project_id: projectId, status: "active" })
    .whereNotNull("bot_url")
    .orderBy([{ column: "created_at" }, { column: "id" }])
    .first()) as InstallationRow | undefined;
  return actingInstallation(ctx, own);
}
