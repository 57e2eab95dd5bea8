// Changing an installation: settings merged and checked, or new credentials verified by the
// platform before the transaction (prepareUpdate) and written in it, a new bot's updates pointed
// here and the old bot's stopped after COMMIT (platform tasks).
import { addFieldError, emptyFieldErrors, mergeFieldErrors, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { uniquely } from "../../db/unique.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import type { VerifiedAccount } from "./drivers/driver.ts";
import { driverFor } from "./drivers/index.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { checkFieldValues, type FieldValue } from "./field-rules.ts";
import {
  botInUse,
  installationOf,
  ONE_BOT_INDEX,
  presentInstallation,
  refuseBotInUse,
  sealFields,
  unavailable,
  verify,
  type Values,
} from "./installations.ts";
import { queuePlatformTask } from "./platform-tasks.ts";
import { queueCreatorMenus } from "./bot/creator-menus.ts";
import { installationsTable, type InstallationRow } from "./tables.ts";

type UpdateBody = { fields?: Values; settings?: Values };

/** A change of credentials checked and verified by the platform before its transaction (null: no new credentials). */
export class UpdatePlan {
  constructor(readonly credentials: { fields: Record<string, FieldValue>; account: VerifiedAccount } | null) {}

  static of(preflight: unknown): UpdatePlan {
    if (!(preflight instanceof UpdatePlan)) throw new Error("update_project_connector runs after its preflight (prepareUpdate)");
    return preflight;
  }
}

/** The checks of a change (both halves of the body), then the platform's verdict on new credentials. */
function checkUpdate(env: ConnectorEnvironment, row: InstallationRow, key: string, body: UpdateBody) {
  const pkg = env.connectors.packages.get(key);
  const driver = driverFor(key, env.platforms);
  if (!pkg || !driver) throw unavailable(key, "this release has no driver for it");
  const { install } = pkg.manifest;
  const errors = emptyFieldErrors();
  let settings: Record<string, FieldValue | null> | null = null;
  if (body.settings) {
    const checked = checkFieldValues(install.settings_fields, { ...presentInstallation(row).settings, ...body.settings }, "settings");
    mergeFieldErrors(errors, checked.errors);
    settings = checked.values;
  }
  let fields: Record<string, FieldValue> | null = null;
  if (body.fields) {
    if (install.mode === "oauth")
      addFieldError(errors, "fields", `${pkg.manifest.name} installs through OAuth: uninstall it and install it again to authorise anew`);
    else {
      const checked = checkFieldValues(install.fields, body.fields, "fields");
      mergeFieldErrors(errors, checked.errors);
      fields = checked.values;
    }
  }
  if (Object.keys(errors).length) throw validationFailed(errors);
  return { pkg, driver, settings, fields };
}

export async function prepareUpdate(
  ctx: DomainContext,
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  body: UpdateBody,
): Promise<UpdatePlan> {
  const row = await installationOf(ctx, env, projectId, key);
  const { driver, fields } = checkUpdate(env, row, key, body);
  if (!fields) return new UpdatePlan(null);
  return new UpdatePlan({ fields, account: await verify(driver, key, { fields, oauth: null }) });
}

export async function updateInstallation(
  ctx: DomainContext,
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  body: UpdateBody,
  plan: UpdatePlan,
) {
  const row = await installationOf(ctx, env, projectId, key, true);
  const { pkg, settings } = checkUpdate(env, row, key, { ...body, fields: undefined });
  const changes: Partial<InstallationRow> = {};
  const changed: ("settings" | "credentials")[] = [];
  if (settings) {
    changes.settings = settings;
    changed.push("settings");
  }
  const { credentials } = plan;
  if (credentials) {
    await refuseBotInUse(ctx, key, credentials.account, row.id);
    Object.assign(changes, {
      platform_account_id: credentials.account.accountId,
      platform_account_name: credentials.account.accountName,
      bot_url: credentials.account.botUrl,
      credentials: sealFields(env, row.id, credentials.fields),
    });
    changed.push("credentials");
  }
  const updated: InstallationRow = { ...row, ...changes, updated_at: ctx.now };
  const write = installationsTable
    .rows(ctx)
    .where({ id: row.id })
    .update({ ...changes, ...(changes.settings ? { settings: JSON.stringify(changes.settings) } : {}), updated_at: ctx.now });
  await uniquely(write, () => botInUse({ accountName: updated.platform_account_name ?? "" }), ONE_BOT_INDEX);
  if (credentials) {
    // A new bot token may name another bot: its updates come here, and the old bot's stop.
    if (row.platform_account_id !== updated.platform_account_id) await queuePlatformTask(ctx, env, row, "stop_updates");
    await queuePlatformTask(ctx, env, updated, "deliver_updates");
    await queueCreatorMenus(ctx, updated);
  }
  const installation = presentInstallation(updated);
  await recordActivity(ctx, {
    event: "connector_updated",
    description: `Connector ${pkg.manifest.name} changed (${changed.join(" and ")})`,
    subjectType: "project",
    subjectId: projectId,
    projectId,
    properties: { connector: key, installation_id: row.id, changed, ...(body.settings ? { settings: Object.keys(body.settings).sort() } : {}) },
  });
  await emitEvent(ctx, { type: "connector.updated", projectId, data: { installation, changed } });
  return installation;
}
