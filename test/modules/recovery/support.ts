// What the Recovery tests share: a project's recovery settings made over REST, and the reset that
// lets a fixture make one again on the same installation (one setting per installation).
import assert from "node:assert/strict";
import { testDatabase } from "../../helpers/backends.ts";
import type { ApiClient } from "../../helpers/http.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { createResource, installConnector } from "../resources/support.ts";
import { connectorsFolder, editJson } from "../../connectors/connector-folders.ts";
import { loadConnectorRegistry, type ConnectorRegistry } from "../../../src/modules/connectors/registry.ts";

/**
 * The shipped packages with Telegram declaring every recovery feature, mirror and identity relink
 * included: the settings' generic checks of a feature are tested with a package that declares it,
 * though no shipped one declares those two (SubBridge does not carry them out).
 */
export function registryDeclaringEveryFeature(): ConnectorRegistry {
  const dir = connectorsFolder();
  editJson(`${dir}/telegram/connector.json`, (m) => {
    m.recovery = { probes: true, standby_installations: true, resource_standby: true, mirror: true, identity_relink: true };
    for (const kind of m.resource_kinds) if (kind.grant_mode === "bearer_link") kind.mirrorable = true;
  });
  return loadConnectorRegistry(dir);
}

export const settingsPath = (project: string) => `/v1/projects/${project}/recovery-settings`;

/** Removes the project's recovery settings past the API (a fixture resetting its state). */
export async function clearSettings(project: string): Promise<void> {
  const { db } = await testDatabase();
  await db("recovery_settings").where({ project_id: project }).delete();
}

/** A recovery setting of the project, made over REST (the connector must be installed). */
export async function createSetting(client: ApiClient, project: string, body: Record<string, unknown> = {}) {
  const res = await client.post(settingsPath(project), { connector: "telegram", ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string; project_id: string; installation_id: string; connector: string } & Record<string, any>;
}

/** A team's places for the recovery tests: Telegram and Discord on P1 with resources, Telegram on P2 (the standby). */
export interface Places {
  telegram: string;
  discord: string;
  /** Telegram on the team's second project: a standby installation of P1's Telegram. */
  standby: string;
  channelA: string;
  channelB: string;
  group: string;
  group2: string;
  perk: string;
  discordRole: string;
  discordChannel: string;
  /** A Telegram channel of P2 (another project of the team). */
  p2Channel: string;
}

/** Installs Telegram and Discord on the creator's P1 and Telegram on P2, with resources of each kind. */
export async function seedPlaces(client: ApiClient, creator: TestCreator): Promise<Places> {
  const [p1, p2] = creator.projectIds as [string, string];
  const telegram = await installConnector(creator, p1);
  const discord = await installConnector(creator, p1, "discord");
  const standby = await installConnector(creator, p2);
  const place = async (project: string, connector: string, kind: string, ref: string | null) =>
    (await createResource(client, project, { connector, kind, title: `${connector} ${kind}`, platform_ref: ref })).id;
  return {
    telegram,
    discord,
    standby,
    channelA: await place(p1, "telegram", "channel", "-1001"),
    channelB: await place(p1, "telegram", "channel", "-1002"),
    group: await place(p1, "telegram", "group", "-1003"),
    group2: await place(p1, "telegram", "group", "-1004"),
    perk: await place(p1, "telegram", "perk", null),
    discordRole: await place(p1, "discord", "role", "role-1"),
    discordChannel: await place(p1, "discord", "channel", "chan-1"),
    p2Channel: await place(p2, "telegram", "channel", "-2001"),
  };
}
