// What the groups tests share: the team they work on and the checks of what a token resolves to.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { ApiClient, type TestResponse } from "../../helpers/http.ts";
import { createTestCreator, joinTeamWithToken, type TestCreator } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { eventsOf } from "../../helpers/events.ts";
import type { OperationSpec } from "../../../generated/operations.ts";
import { ApiError } from "../../../src/errors.ts";
import { authorizeOperation } from "../../../src/pipeline/authorize.ts";
import type { Principal } from "../../../src/pipeline/context.ts";
import { lookupToken, parseBearer, verifyToken, type ResolvedToken } from "../../../src/modules/tokens/tokens.ts";

export const code = () => `group-${randomBytes(4).toString("hex")}`;
export const sorted = (list: readonly string[]) => [...list].sort();

export interface Group {
  id: string;
  code: string;
  name: string;
  abilities: string[];
  project_ids: string[];
  member_ids: string[];
  created_at: string;
  updated_at: string;
}

export function patch(client: ApiClient, path: string, body: unknown): Promise<TestResponse> {
  return client.request("PATCH", path, { body });
}

/** Everything a refused groups call must leave alone on a team. */
export async function snapshot(teamId: string) {
  const { db } = await testDatabase();
  return {
    groups: await db("groups")
      .where({ team_id: teamId })
      .orderBy("id")
      .select("id", "code", "name", "abilities", "project_ids", "member_user_ids", "updated_at"),
    activity: (await db("activity_log").where({ team_id: teamId }).whereNot({ event: "tool_invoked" }).count({ n: "*" }).first())!.n,
    events: (await eventsOf(teamId)).length,
  };
}

/** A fake project-scoped operation requiring `ability` (none exists in the table yet). */
export function projectOperation(ability: string): OperationSpec {
  return { id: "fake_project_operation", ability, pathParams: ["project"] } as unknown as OperationSpec;
}

/** What the token resolves to, straight from the database (lookupToken + verifyToken). */
export async function resolve(token: string): Promise<ResolvedToken> {
  const { db } = await testDatabase();
  const parsed = parseBearer(token)!;
  const record = await lookupToken(db, parsed.id, new Date());
  assert.ok(record, "the token exists");
  const resolved = verifyToken(record, parsed.secret, new Date());
  assert.ok(resolved, "the secret matches");
  return resolved;
}

export function authorizes(principal: Principal, ability: string, project: string): void {
  authorizeOperation(projectOperation(ability), principal, { project });
}

export function refusesWith(principal: Principal, ability: string, project: string | undefined, code: string): ApiError {
  let caught: unknown;
  try {
    authorizeOperation(projectOperation(ability), principal, project === undefined ? {} : { project });
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ApiError, `${ability} on ${project ?? "no project"} is refused (got ${String(caught)})`);
  assert.equal(caught.code, code, `${ability} on ${project ?? "no project"}: ${caught.message}`);
  return caught;
}

export const projectMap = (resolved: { projectAbilities: ReadonlyMap<string, ReadonlySet<string>> }) =>
  Object.fromEntries([...resolved.projectAbilities].map(([project, abilities]) => [project, sorted([...abilities])]));

export interface GroupsTeam {
  api: RunningApi;
  owner: TestCreator;
  client: ApiClient;
  member: TestCreator;
  stranger: TestCreator;
  p1: string;
  p2: string;
  createGroup(fields?: Partial<Omit<Group, "id">>, as?: ApiClient): Promise<Group>;
}

/**
 * In the calling describe's hooks: an API, a Growth team with two projects (p1, p2) and a member,
 * and a creator of another team; createGroup makes a group on it (P1, the member, project:update).
 */
export function useGroupsTeam(): GroupsTeam {
  const team = {} as GroupsTeam;
  before(async () => {
    team.api = await startApi();
    team.owner = await createTestCreator({ label: "groups-owner", projects: 2 });
    [team.p1, team.p2] = team.owner.projectIds as [string, string];
    team.client = new ApiClient(team.api.url, team.owner.token);
    team.member = await createTestCreator({ label: "groups-member" });
    await joinTeamWithToken(team.owner, team.member, ["team:view"], "member");
    team.stranger = await createTestCreator({ label: "groups-stranger" });
    team.createGroup = async (fields = {}, as = team.client) => {
      const res = await as.post("/v1/groups", {
        code: code(),
        name: "A group",
        abilities: ["project:update"],
        project_ids: [team.p1],
        member_ids: [team.member.userId],
        ...fields,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data as Group;
    };
  });
  after(() => team.api?.close());
  return team;
}
