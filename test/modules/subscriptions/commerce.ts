// What the commerce tests (members, subscriptions, access codes, creator tasks) share: a project's
// catalogue inserted directly (plans, resources and installations have their own areas, built in
// parallel), access codes generated and redeemed through the domain functions, and the job runner.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { createDomainContext, systemActor, type DomainContext } from "../../../src/db/tenant.ts";
import { generateAccessCodes } from "../../../src/modules/access-codes/codes.ts";
import { redeemAccessCode, type Redemption } from "../../../src/modules/access-codes/redeem.ts";
import type { ScheduledJob } from "../../../src/modules/jobs/scheduled-job.ts";
import type { BillingCycle } from "../../../src/modules/plans/tables.ts";
import type { GrantMode } from "../../../src/modules/resources/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import { expectError, type ApiClient } from "../../helpers/http.ts";
import { grantableAbilities } from "../../../src/modules/tokens/abilities.ts";
import { seedInstallation } from "../../helpers/platforms.ts";

export interface SeededPlan {
  planId: string;
  projectId: string;
  /** The plan's resources, in the plan's order. */
  resourceIds: string[];
}

export interface PlanOptions {
  resources?: { mode: GrantMode; title?: string; platformRef?: string }[];
  /** The connector the plan's resources belong to (telegram unless said). */
  connector?: "telegram" | "discord";
  trialDays?: number;
  cycle?: BillingCycle;
  status?: "draft" | "published" | "archived";
  /** Pass windows [starts_at, ends_at] the plan sells. */
  windows?: [Date, Date][];
  projectIndex?: number;
}

/** The manifests' resource kinds a seeded resource takes, by what it grants. */
const RESOURCE_KIND = {
  telegram: { task: "telegram-manual", role: "telegram-channel", place: "telegram-channel" },
  discord: { task: "perk", role: "role", place: "channel" },
} as const;

/** A plan of the creator's project (published unless said) granting resources of the given modes. */
export async function seedPlan(creator: TestCreator, options: PlanOptions = {}): Promise<SeededPlan> {
  const { db } = await testDatabase();
  const projectId = creator.projectIds[options.projectIndex ?? 0]!;
  const teamId = creator.teamId;
  const connector = options.connector ?? "telegram";
  const installationId = await seedInstallation(teamId, projectId, connector);
  const now = new Date();
  const planId = randomUUID();
  await db("plans").insert({
    id: planId,
    team_id: teamId,
    project_id: projectId,
    name: `Plan ${randomBytes(3).toString("hex")}`,
    amount_minor: 500,
    currency: "USD",
    billing_cycle: options.cycle ?? "month",
    billing_cycle_count: 1,
    trial_days: options.trialDays ?? 0,
    status: options.status ?? "published",
    published_at: now,
    created_at: now,
    updated_at: now,
  });
  const resourceIds: string[] = [];
  for (const [position, resource] of (options.resources ?? [{ mode: "creator_task" }]).entries()) {
    const id = randomUUID();
    await db("resources").insert({
      id,
      team_id: teamId,
      project_id: projectId,
      installation_id: installationId,
      connector_key: connector,
      kind: RESOURCE_KIND[connector][resource.mode === "creator_task" ? "task" : resource.mode === "role" ? "role" : "place"],
      grant_mode: resource.mode,
      ...(resource.platformRef ? { platform_ref: resource.platformRef } : {}),
      title: resource.title ?? `Perk ${position + 1}`,
      created_at: now,
      updated_at: now,
    });
    await db("plan_resources").insert({ plan_id: planId, resource_id: id, team_id: teamId, project_id: projectId, position });
    resourceIds.push(id);
  }
  for (const [startsAt, endsAt] of options.windows ?? []) {
    await db("pass_windows").insert({
      id: randomUUID(),
      team_id: teamId,
      project_id: projectId,
      plan_id: planId,
      name: "Window",
      starts_at: startsAt,
      ends_at: endsAt,
      created_at: now,
      updated_at: now,
    });
  }
  return { planId, projectId, resourceIds };
}

/** Runs `work` in one transaction as `creator` (or the system), at `now`. */
export async function asDomain<T>(
  creator: TestCreator,
  work: (ctx: DomainContext) => Promise<T>,
  options: { now?: Date; system?: boolean } = {},
): Promise<T> {
  const { db } = await testDatabase();
  const actor = options.system ? systemActor(creator.teamId) : { ...systemActor(creator.teamId), userId: creator.userId, kind: "api_token" as const };
  return db.transaction((trx) => work(createDomainContext(trx, actor, options.now ?? new Date())));
}

/** Codes of `plan`, in full (as the generation response gives them). */
export async function codesFor(creator: TestCreator, plan: SeededPlan, quantity = 1, expiresAt: Date | null = null): Promise<string[]> {
  const batch = await asDomain(creator, (ctx) =>
    generateAccessCodes(ctx, plan.projectId, plan.planId, { quantity, expires_at: expiresAt?.toISOString() ?? null }),
  );
  return batch.codes.map((c) => c.code);
}

export const account = (name = "Lin") => ({
  connectorKey: "telegram",
  externalUserId: String(100000 + Math.floor(Math.random() * 1e9)),
  displayName: name,
});

/** Redeems `code` on the plan's project as the connector bot would (the system actor). */
export function redeem(creator: TestCreator, projectId: string, code: string, member = account(), now?: Date): Promise<Redemption> {
  return asDomain(creator, (ctx) => redeemAccessCode(ctx, { projectId, code, member }), { system: true, ...(now ? { now } : {}) });
}

/** A member with a live subscription to a fresh plan: the redemption's result. */
export async function subscribedMember(creator: TestCreator, options: PlanOptions = {}): Promise<Redemption & { plan: SeededPlan }> {
  const plan = await seedPlan(creator, options);
  const [code] = await codesFor(creator, plan);
  return { ...(await redeem(creator, plan.projectId, code!)), plan };
}

/** Runs the job named `name` of `jobs` at `now`. */
export async function runJob(jobs: ScheduledJob[], name: string, now: Date): Promise<number> {
  const job = jobs.find((j) => j.name === name);
  assert.ok(job, `a job named ${name}`);
  const { db } = await testDatabase();
  return (await job.run({ db, now })).changed;
}

export const DAY = 24 * 60 * 60 * 1000;

/**
 * 401 without a credential, and 403 TOKEN_MISSING_ABILITY naming `ability` for a token of the same
 * creator holding every other ability of the operation's entity (nothing changes either way).
 */
export async function expectCredentialRefusals(
  client: ApiClient,
  creator: TestCreator,
  call: { method: string; path: string; body?: unknown; ability: string },
): Promise<void> {
  const options = call.body !== undefined ? { body: call.body } : {};
  expectError(await client.request(call.method, call.path, { ...options, token: "" }), 401, "AUTHENTICATION_REQUIRED");
  const others = [...grantableAbilities].filter(
    (a) => a !== call.ability && !(call.ability.endsWith(":view-any") && a === "project-subscription-plan:view-any"),
  );
  const { token } = await tokenFor(creator, others);
  const error = expectError(await client.request(call.method, call.path, { ...options, token }), 403, "TOKEN_MISSING_ABILITY");
  assert.equal(error.context.required_ability, call.ability);
}

/** The team's activity entries about `subjectId`, oldest first. */
export async function activityOf(
  teamId: string,
  subjectId: string,
): Promise<{ event: string; subject_type: string; actor_kind: string; causer_id: string | null; properties: any }[]> {
  const { db } = await testDatabase();
  return db("activity_log").where({ team_id: teamId, subject_id: subjectId }).whereNot({ event: "tool_invoked" }).orderBy("created_at").select("*");
}
