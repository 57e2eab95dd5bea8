// The data hostile requests run against: a creator whose lists are longer than any page (so an
// unbounded read shows), a project with more activity than any `limit` allows, a full token that
// is minted again whenever a hostile request deleted it, and the row counts of every table that
// holds the team's data (found in the schema: every table with a team_id column).
import { createTestCreator, type TestCreator } from "../helpers/fixtures.ts";
import { testDatabase } from "../helpers/backends.ts";
import { mintTokenForCreator } from "../../src/operator.ts";
import { recordActivity } from "../../src/modules/activity/activity-log.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import type { Anchors } from "./valid-values.ts";

/** More tokens than maxPerPage (100) and more activity entries than `limit`'s maximum (200). */
export const SEED_TOKENS = 130;
export const SEED_ENTRIES = 250;

export interface World {
  creator: TestCreator;
  projectId: string;
  /** The current full token (a hostile DELETE may have deleted the previous one). */
  token: string;
  /** Values valid-looking fields of these names prefer, so requests reach the seeded rows. */
  anchors: Anchors;
  /** Mints a new full token and makes it current. */
  remint(): Promise<void>;
  /** Mints tokens until the team has SEED_TOKENS again (hostile deletes may have taken some). */
  topUpTokens(): Promise<void>;
  /** Rows per table that has a team_id column, for the team. */
  teamRows(): Promise<Record<string, number>>;
}

const count = async (query: PromiseLike<unknown[]>) => Number(((await query) as { n: string | number }[])[0]!.n);

let shared: Promise<World> | null = null;

/** One world per run, shared by the REST and MCP files (seeding takes a few seconds). */
export function hostileWorld(): Promise<World> {
  return (shared ??= createWorld());
}

async function createWorld(): Promise<World> {
  const { db } = await testDatabase();
  const creator = await createTestCreator({ label: "hostile" });
  const projectId = creator.projectIds[0]!;
  const teamId = creator.teamId;

  const mintSeedTokens = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await mintTokenForCreator(db, { email: creator.email, abilities: ["team:view"], name: `seed ${i}` }, new Date());
    }
  };
  const tokenCount = () => count(db("personal_access_tokens").where({ team_id: teamId }).count({ n: "*" }));
  await mintSeedTokens(SEED_TOKENS);

  const start = Date.now() - SEED_ENTRIES * 1000;
  await db.transaction(async (trx) => {
    for (let i = 0; i < SEED_ENTRIES; i++) {
      await recordActivity(createDomainContext(trx, systemActor(teamId), new Date(start + i * 1000)), {
        event: "hostile_seed",
        description: `Seed entry ${i}`,
        subjectType: "project",
        subjectId: projectId,
        projectId,
        properties: { i },
      });
    }
  });

  const tables: string[] = (
    await db("information_schema.columns").where({ column_name: "team_id" }).whereRaw("table_schema = current_schema()").select("table_name")
  )
    .map((r: { table_name: string }) => r.table_name)
    .sort();

  const world: World = {
    creator,
    projectId,
    token: creator.token,
    anchors: { subject_type: ["project"], subject_id: [projectId], project_ids: [[projectId]] },
    async remint() {
      world.token = (await mintTokenForCreator(db, { email: creator.email, abilities: "all" }, new Date())).token;
    },
    async topUpTokens() {
      const missing = SEED_TOKENS - (await tokenCount());
      if (missing > 0) await mintSeedTokens(missing);
    },
    async teamRows() {
      // One statement for every table (a refused write is checked before and after each request).
      const counts = tables.map((table) => db.raw("(select count(*) from ?? where team_id = ?)", [table, teamId]));
      const [row] = await db.select(Object.fromEntries(tables.map((table, i) => [table, counts[i]])));
      return Object.fromEntries(tables.map((table) => [table, Number((row as Record<string, string | number>)[table])]));
    },
  };
  return world;
}

/**
 * The world's tool_invoked entries written since `since`, oldest first. An entry is against the
 * team or against the project a call named (the world's; any other id is not the team's), so the
 * activity subject index finds them without reading the team's whole log, which grows by an entry
 * per call.
 */
export async function toolEntriesSince(world: World, since: Date, columns = "*"): Promise<Record<string, any>[]> {
  const { db } = await testDatabase();
  const { teamId } = world.creator;
  return db("activity_log")
    .where({ team_id: teamId, event: "tool_invoked" })
    .where((subject) => subject.where({ subject_type: "team", subject_id: teamId }).orWhere({ subject_type: "project", subject_id: world.projectId }))
    .where("created_at", ">=", since)
    .orderBy("seq")
    .select(columns);
}
