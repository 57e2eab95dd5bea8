// Helpers of the Connectors and Distribution tests: installations made through the API with bots
// registered on the process's fake platform, and projects made for one test.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { updatesSecret } from "../../../src/modules/connectors/bot/session.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { createProject } from "../../../src/modules/projects/projects.ts";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { testDatabase } from "../../helpers/backends.ts";
import type { ApiClient } from "../../helpers/http.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { newTelegramBot } from "../../helpers/platforms.ts";
import { startMcp, type RunningMcp } from "../../helpers/mcp.ts";
import type { ApiSuite } from "../../helpers/suite.ts";
import { CallerFactory } from "../../tenancy/callers.ts";
import type { Caller } from "../../tenancy/types.ts";

/**
 * Posts a message `text` from `userId` (in their private chat unless `chat` says) to the
 * installation's updates address, as Telegram delivers it, with the installation's secret token
 * unless `secret` says.
 */
export function postTelegramMessage(
  apiUrl: string,
  installationId: string,
  userId: number,
  text: string,
  options: { secret?: string; firstName?: string; lastName?: string; chat?: "private" | "group" | "supergroup" } = {},
): Promise<Response> {
  const from = { id: userId, is_bot: false, first_name: options.firstName ?? "Ada", ...(options.lastName ? { last_name: options.lastName } : {}) };
  const update = {
    update_id: randomInt(1, 1e9),
    message: { message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: userId, type: options.chat ?? "private" }, from, text },
  };
  return fetch(`${apiUrl}/connectors/telegram/${installationId}/updates`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": options.secret ?? updatesSecret(TEST_APP_KEY, installationId) },
    body: JSON.stringify(update),
  });
}

/** Posts a private "/start <payload>" (a bare "/start" for null) from `userId`, as postTelegramMessage does. */
export function postTelegramStart(
  apiUrl: string,
  installationId: string,
  userId: number,
  payload: string | null,
  options: { secret?: string; firstName?: string; lastName?: string } = {},
): Promise<Response> {
  return postTelegramMessage(apiUrl, installationId, userId, payload === null ? "/start" : `/start ${payload}`, options);
}

export const installPath = (project: string, key = "telegram") => `/v1/projects/${project}/connectors/${key}`;

/** A new project of the creator's team (made the way the product makes them). */
export async function newProject(creator: TestCreator, name = "Connector project"): Promise<string> {
  const { db } = await testDatabase();
  const actor = { ...systemActor(creator.teamId), userId: creator.userId };
  return (await db.transaction((trx) => createProject(createDomainContext(trx, actor, new Date()), { name }))).id;
}

/** Installs Telegram on the project with a new bot; answers the installation and the bot. */
export async function installTelegram(client: ApiClient, project: string, settings: Record<string, unknown> = {}) {
  const bot = await newTelegramBot();
  const res = await client.post(installPath(project), { fields: { bot_token: bot.token }, settings });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { installation: res.body.data, bot };
}

/** The project's installation row of `key`, read past the API (undefined when none). */
export async function installationRow(project: string, key = "telegram") {
  const { db } = await testDatabase();
  return db("connector_installations").where({ project_id: project, connector_key: key }).first();
}

/** Makes sure the project runs Telegram (installing it when it does not). */
export async function ensureTelegram(client: ApiClient, project: string) {
  if (!(await installationRow(project))) await installTelegram(client, project);
}

/** Removes the project's installation of `key` past the API (a fixture resetting its state). */
export async function removeInstallation(project: string, key = "telegram") {
  const { db } = await testDatabase();
  await db("connector_installations").where({ project_id: project, connector_key: key }).delete();
}

export async function projectExists(project: string) {
  const { db } = await testDatabase();
  return (await db("projects").where({ id: project }).first("id")) !== undefined;
}

/** In the calling describe's hooks: an MCP surface beside the suite's API; `creator()` calls it with the suite creator's full token. */
export function useMcpBeside(suite: ApiSuite): { creator(): Promise<Caller> } {
  let mcp: RunningMcp;
  let callers: CallerFactory;
  before(async () => {
    mcp = await startMcp({ baseUrl: suite.api.url });
    callers = new CallerFactory(suite.api.url, mcp);
  });
  after(async () => {
    await callers?.close();
    await mcp?.close();
  });
  return { creator: () => callers.caller("mcp", suite.creator.token, "the creator") };
}

/**
 * A mass-removal hold on the project's installation of `key`, recorded as the drift sweep records
 * one (drift.ts), gating a new perk of the project: the API's side of holds without a whole sweep.
 */
export async function seedRemovalHold(
  client: ApiClient,
  project: string,
  options: { key?: string; users?: string[]; holders?: number; status?: "held" | "confirmed" | "cancelled"; createdAt?: Date } = {},
) {
  const { db } = await testDatabase();
  const key = options.key ?? "telegram";
  if (key === "telegram") await ensureTelegram(client, project);
  const installation = await installationRow(project, key);
  assert.ok(installation, `the project runs ${key}`);
  const resource = await client.post(`/v1/projects/${project}/resources`, { connector: key, kind: "perk", title: "Held role" });
  assert.equal(resource.status, 201, JSON.stringify(resource.body));
  const users = options.users ?? ["1101234567890123456", "1101234567890123457"];
  const id = randomUUID();
  await db("connector_removal_holds").insert({
    id,
    team_id: installation.team_id,
    project_id: project,
    installation_id: installation.id,
    resource_id: resource.body.data.id,
    place: "1187654321098765432",
    holders: options.holders ?? users.length * 2,
    planned_count: users.length,
    member_ids: JSON.stringify(users),
    status: options.status ?? "held",
    created_at: options.createdAt ?? new Date(),
  });
  return { id, resource: resource.body.data as { id: string; title: string }, installation: installation as { id: string } };
}
