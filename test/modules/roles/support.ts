// What the roles tests share: the team (REST and MCP on one KV store) and small helpers.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { ApiClient, type TestResponse } from "../../helpers/http.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { startMcp, type RunningMcp } from "../../helpers/mcp.ts";
import { CallerFactory } from "../../tenancy/callers.ts";
import type { CallResult } from "../../tenancy/types.ts";

export const code = (prefix = "role") => `${prefix}-${randomBytes(4).toString("hex")}`;
export const sorted = (list: readonly string[]) => [...list].sort();

export function patch(client: ApiClient, path: string, body: unknown): Promise<TestResponse> {
  return client.request("PATCH", path, { body });
}

export function refused(result: CallResult, code: string): void {
  assert.equal(result.ok, false, `${result.request} answered a success: ${JSON.stringify(result.body).slice(0, 300)}`);
  if (!result.ok) assert.equal(result.code, code, `${result.request}: ${JSON.stringify(result.body).slice(0, 300)}`);
}

export interface Role {
  id: string;
  code: string;
  name: string;
  abilities: string[];
  built_in: boolean;
  created_at: string;
  updated_at: string;
}

export interface RolesTeam {
  api: RunningApi;
  mcp: RunningMcp;
  callers: CallerFactory;
  owner: TestCreator;
  client: ApiClient;
  createRole(abilities: string[], name?: string, as?: ApiClient): Promise<Role>;
}

/** In the calling describe's hooks: REST and MCP on one KV store (as in a deployment: a change made over REST reaches MCP) and a Growth team. */
export function useRolesTeam(): RolesTeam {
  const team = {} as RolesTeam;
  before(async () => {
    team.api = await startApi({ sharedKv: "roles-area" });
    team.mcp = await startMcp({ sharedKv: "roles-area", baseUrl: team.api.url });
    team.callers = new CallerFactory(team.api.url, team.mcp);
    team.owner = await createTestCreator({ label: "roles-owner" });
    team.client = new ApiClient(team.api.url, team.owner.token);
    team.createRole = async (abilities, name = "Custom role", as = team.client) => {
      const res = await as.post("/v1/roles", { code: code(), name, abilities });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data as Role;
    };
  });
  after(async () => {
    await team.callers?.close();
    await team.mcp?.close();
    await team.api?.close();
  });
  return team;
}
