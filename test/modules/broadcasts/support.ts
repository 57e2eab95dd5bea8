// What the broadcast tests share: members seeded straight into a project (with an optional
// subscription), a creator's linked identity, and the bot message worker run at a chosen moment.
import { randomInt, randomUUID } from "node:crypto";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";

export interface SeededMember {
  id: string;
  externalUserId: string;
}

export interface MemberOptions {
  connector?: string;
  status?: "lead" | "customer" | "banned";
  joinedAt?: Date;
  optedOut?: boolean;
  /** A subscription of the member to this plan, in this status. */
  subscription?: { planId: string; status: "trialing" | "active" | "canceled" | "expired" };
}

/** `count` members of the creator's project with a platform account, inserted in one statement each kind. */
export async function seedMembers(creator: TestCreator, projectId: string, count: number, options: MemberOptions = {}): Promise<SeededMember[]> {
  const { db } = await testDatabase();
  const now = new Date();
  const rows = Array.from({ length: count }, () => ({
    id: randomUUID(),
    team_id: creator.teamId,
    project_id: projectId,
    connector_key: options.connector ?? "telegram",
    external_user_id: String(randomInt(1_000_000, 2_000_000_000)),
    display_name: "Member",
    status: options.status ?? "customer",
    joined_at: options.joinedAt ?? now,
    broadcasts_opted_out_at: options.optedOut ? now : null,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += 200) await db("members").insert(rows.slice(i, i + 200));
  if (options.subscription) {
    const subs = rows.map((m) => ({
      id: randomUUID(),
      team_id: creator.teamId,
      project_id: projectId,
      member_id: m.id,
      plan_id: options.subscription!.planId,
      status: options.subscription!.status,
      source: "access_code",
      started_at: now,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < subs.length; i += 200) await db("subscriptions").insert(subs.slice(i, i + 200));
  }
  return rows.map((r) => ({ id: r.id, externalUserId: r.external_user_id }));
}

/** Links a platform account to the creator (as a bot sign-in would). */
export async function linkIdentity(creator: TestCreator, connector: string, accountId: string): Promise<void> {
  const { db } = await testDatabase();
  await db("identities").insert({
    id: randomUUID(),
    user_id: creator.userId,
    connector,
    account_id: accountId,
    is_primary: false,
    linked_at: new Date(),
  });
}

/**
 * Runs the bot message worker at `now` for the installations until nothing more is due then. Every
 * run shares one KV store, as a deployment's workers do, so the pacing carries over between runs.
 */
export async function sendBotMessages(installations: string[], now = new Date()) {
  const { db } = await testDatabase();
  const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
  return sendDueBotMessages({ db, kv: await testKv({ shared: "broadcast-pacing" }), env, logger: testLogger, now, installations });
}

/** The broadcast's recipients past the API: status by platform account. */
export async function recipientStatuses(broadcastId: string): Promise<Map<string, string>> {
  const { db } = await testDatabase();
  const rows = (await db("broadcast_recipients").where({ broadcast_id: broadcastId }).select("platform_user_id", "status")) as {
    platform_user_id: string;
    status: string;
  }[];
  return new Map(rows.map((r) => [r.platform_user_id, r.status]));
}

/** A published plan of the project (nothing sold through it here: a segment filters by it). */
export async function seedPlanIn(creator: TestCreator, projectId: string): Promise<string> {
  const { db } = await testDatabase();
  const id = randomUUID();
  const now = new Date();
  await db("plans").insert({
    id,
    team_id: creator.teamId,
    project_id: projectId,
    name: `Plan ${id.slice(0, 6)}`,
    amount_minor: 500,
    currency: "USD",
    billing_cycle: "month",
    billing_cycle_count: 1,
    trial_days: 0,
    status: "published",
    published_at: now,
    created_at: now,
    updated_at: now,
  });
  return id;
}
