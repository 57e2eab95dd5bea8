// What a recovery alert says: what the probe found wrong, in which place, and what the creator does
// about it (a new bot token, the bot added back as an administrator), or that it works again.
import { platformName } from "../connectors/platform-name.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import type { RecoverySettingRow, RecoveryStatus } from "./tables.ts";

/** A place as probed, with the titles of the project's resources in it. */
export interface ProbedPlace {
  place: string;
  ok: boolean;
  reason?: string;
  titles: string[];
}

export interface ProbeAlertInput {
  setting: Pick<RecoverySettingRow, "id" | "project_id" | "connector_key" | "probe_interval_minutes">;
  projectName: string;
  installation: Pick<InstallationRow, "platform_account_name" | "bot_url">;
  status: RecoveryStatus;
  account: { ok: boolean; reason?: string };
  places: ProbedPlace[];
}

/** What to do, per connector: Telegram's bot is the creator's own, Discord's is the deployment's. */
function remedy(input: ProbeAlertInput): string[] {
  const { setting, installation } = input;
  const bot = installation.platform_account_name
    ? `@${installation.platform_account_name}${installation.bot_url ? ` (${installation.bot_url})` : ""}`
    : "the bot";
  const steps: string[] = [];
  if (!input.account.ok && setting.connector_key === "telegram")
    steps.push(
      `Present a new bot token: make one for ${bot} in @BotFather and give it to SubBridge (update_project_connector, PATCH /v1/projects/${setting.project_id}/connectors/telegram with fields.bot_token).`,
    );
  else if (!input.account.ok)
    steps.push(`Add the SubBridge bot back to the ${platformName(setting.connector_key)} server (install the connector again).`);
  if (input.account.ok && setting.connector_key === "telegram")
    steps.push(
      `Make ${bot} an administrator of each place above (add it back where it was removed) with the rights to invite users and to ban users.`,
    );
  else if (input.account.ok) {
    steps.push("Make sure each place above exists and the bot can see it, or point its resource at the place that replaced it.");
    // The Discord driver's role reasons: the two a creator mends in the server's role settings.
    const reasons = new Set(input.places.filter((p) => !p.ok).map((p) => p.reason));
    if (reasons.has("the bot lacks Manage Roles")) steps.push("Give the SubBridge role the Manage Roles permission (Server Settings, Roles).");
    if (reasons.has("the role is managed by an integration"))
      steps.push("Gate with a role of your own instead of an integration's (a bot's or the booster role, which Discord lets no one give).");
    if (reasons.has("the bot's role is not above this role"))
      steps.push("Drag the SubBridge role above each role listed above (Server Settings, Roles): a bot gives only roles below its own.");
  }
  return steps;
}

/** The alert's title and body for a probe that ended at `status`. */
export function probeAlert(input: ProbeAlertInput): { title: string; body: string } {
  const { setting, projectName, status } = input;
  const platform = platformName(setting.connector_key);
  const settingPath = `GET /v1/projects/${setting.project_id}/recovery-settings/${setting.id} (get_recovery_setting)`;
  if (status === "healthy")
    return {
      title: `${projectName}: ${platform} works again`,
      body: `The recovery probe found the ${platform} installation of ${projectName} and every place it gates working again.\n\nThe setting: ${settingPath}.`,
    };
  const failing = input.places.filter((p) => !p.ok);
  const lines = [
    status === "lost"
      ? `The recovery probe found the ${platform} installation of ${projectName} no longer working: members cannot be let in or removed.`
      : `The recovery probe found ${failing.length} of ${input.places.length} places of ${projectName} on ${platform} that the bot cannot manage: members cannot be let in or removed there.`,
    "",
    ...(input.account.ok ? [] : [`${platform}: ${input.account.reason ?? "the installation was refused"}.`]),
    ...(input.account.ok ? failing.map((p) => `- ${p.titles.join(", ") || "a place"} (${p.place}): ${p.reason ?? "not reachable"}`) : []),
    "",
    "What to do:",
    ...remedy(input).map((step) => `- ${step}`),
    "",
    `SubBridge probes again every ${setting.probe_interval_minutes} minutes and tells you when it works again. The setting: ${settingPath}.`,
  ];
  return {
    title: `${projectName}: ${status === "lost" ? `${platform} installation lost` : `${platform} places the bot cannot manage`}`,
    body: lines.join("\n"),
  };
}
