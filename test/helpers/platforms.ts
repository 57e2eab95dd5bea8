// The local fake platform every test process shares (Telegram's Bot API and Discord's API on
// loopback): apps started by the helpers point their connector drivers at it, so no test contacts
// an outside host. Tests register the bots and OAuth codes they use.
import assert from "node:assert/strict";
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { testDatabase } from "./backends.ts";
import { startFakePlatform, type FakePlatform } from "../../src/simulators/platforms/fake-platform.ts";
import { fakePlatformEndpoints } from "../../src/outside/platforms.ts";
import type { PlatformEndpoints } from "../../src/config.ts";

export const PORTAL_URL = "http://portal.test";

let shared: Promise<FakePlatform> | null = null;

/** The process's fake platform (started on first use; its server does not keep the process alive). */
export function testPlatform(): Promise<FakePlatform> {
  return (shared ??= startFakePlatform());
}

export async function testPlatformEndpoints(): Promise<PlatformEndpoints> {
  return fakePlatformEndpoints(await testPlatform());
}

/** A new bot on the fake Telegram: its token (well-formed for the manifest's rule), id and username. */
export async function newTelegramBot(label = "test"): Promise<{ token: string; id: number; username: string }> {
  const id = randomInt(100_000_000, 999_999_999);
  const token = `${id}:${randomBytes(27).toString("base64url")}`;
  const username = `${label}_${id}_bot`;
  (await testPlatform()).addTelegramBot(token, { id, username });
  return { token, id, username };
}

/** A fresh OAuth code that adds the fake Discord's bot to a new guild. */
export async function newDiscordAuthorization(): Promise<{ code: string; guild: { id: string; name: string } }> {
  const code = randomBytes(15).toString("base64url");
  const guild = { id: String(100_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 47))), name: `Guild ${code.slice(0, 5)}` };
  (await testPlatform()).addDiscordAuthorization(code, guild);
  return { code, guild };
}

/** The simulated consent screen's form, answered as a person named `name` (with `id`): the application's callback it redirects to. */
export async function authorizeOnDiscord(authorizeUrl: string, person: { id: string; name: string }): Promise<string> {
  const page = await (await fetch(authorizeUrl)).text();
  assert.match(page, /<button>Authorize<\/button>/);
  const fields = Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]),
  );
  const answer = await fetch(new URL("/oauth2/authorize", authorizeUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, user_id: person.id, user_name: person.name }).toString(),
    redirect: "manual",
  });
  assert.equal(answer.status, 302);
  return answer.headers.get("location")!;
}

/**
 * The project's installation of `connector` as an install records it (a Telegram bot with its URL,
 * a Discord server), without credentials: for tests of areas that only need one to exist. Reuses
 * the project's installation when it has one.
 */
export async function seedInstallation(teamId: string, projectId: string, connector = "telegram"): Promise<string> {
  const { db } = await testDatabase();
  const found = await db("connector_installations").where({ project_id: projectId, connector_key: connector }).first("id");
  if (found) return found.id as string;
  const id = randomUUID();
  const now = new Date();
  const account = String(randomInt(100_000_000, 999_999_999));
  const telegram = connector === "telegram";
  await db("connector_installations").insert({
    id,
    team_id: teamId,
    project_id: projectId,
    connector_key: connector,
    status: "active",
    platform_account_id: account,
    platform_account_name: telegram ? `seeded_${account}_bot` : `Seeded server ${account}`,
    bot_url: telegram ? `https://t.me/seeded_${account}_bot` : null,
    settings: JSON.stringify({}),
    created_at: now,
    updated_at: now,
  });
  return id;
}
