// The Account area's abilities: account:read for reads, account:write for changes, and both
// REST-only (no MCP tool requires them, and a live MCP server offers none of these routes).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { tokenFor } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { connectMcp, startMcp } from "../../helpers/mcp.ts";
import { freshCreator, link, put } from "./support.ts";

const ACCOUNT_OPERATIONS = ["list_identities", "unlink_identity", "list_alert_destinations", "replace_alert_destinations"];

describe("account: abilities", () => {
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api?.close());

  const creator = (label?: string) => freshCreator(api.url, label);

  it("reads need account:read and changes account:write (403 TOKEN_MISSING_ABILITY)", async () => {
    const { c } = await creator();
    const identity = await link(c);
    const none = new ApiClient(api.url, (await tokenFor(c, ["team:view"])).token);
    const reader = new ApiClient(api.url, (await tokenFor(c, ["account:read"])).token);
    const writer = new ApiClient(api.url, (await tokenFor(c, ["account:write"])).token);
    const calls = {
      list_identities: (x: ApiClient) => x.get("/v1/me/identities"),
      list_alert_destinations: (x: ApiClient) => x.get("/v1/me/alert-destinations"),
      unlink_identity: (x: ApiClient) => x.delete(`/v1/me/identities/${crypto.randomUUID()}`),
      replace_alert_destinations: (x: ApiClient) => put(x, { destinations: [] }),
    };
    for (const [operation, call] of Object.entries(calls)) {
      const needed = operation.startsWith("list_") ? "account:read" : "account:write";
      assert.equal(expectError(await call(none), 403, "TOKEN_MISSING_ABILITY").context?.required_ability, needed, operation);
      const other = needed === "account:read" ? writer : reader;
      assert.equal(expectError(await call(other), 403, "TOKEN_MISSING_ABILITY").context?.required_ability, needed, operation);
    }
    assert.equal((await reader.get("/v1/me/identities")).status, 200);
    assert.equal((await writer.delete(`/v1/me/identities/${identity.id}`)).status, 204);
  });

  it("are REST-only: none of these routes is an MCP tool", async () => {
    const manifest = JSON.parse(readFileSync(new URL("../../../generated/mcp-tools.json", import.meta.url), "utf8")) as {
      tools: { name: string; ability: string }[];
    };
    const names = manifest.tools.map((t) => t.name);
    assert.ok(names.includes("list_roles"), "the manifest lists tools (positive control)");
    for (const operation of ACCOUNT_OPERATIONS) assert.ok(!names.includes(operation), `${operation} is not an MCP tool`);
    assert.ok(!manifest.tools.some((t) => t.ability.startsWith("account:")), "no tool requires an account ability");
    const catalog = JSON.parse(readFileSync(new URL("../../../generated/abilities.json", import.meta.url), "utf8")).abilities as {
      value: string;
      enforcement: string;
    }[];
    for (const ability of ["account:read", "account:write"]) assert.equal(catalog.find((a) => a.value === ability)?.enforcement, "R", ability);
    // And a live MCP server does not offer them to a token holding every ability.
    const mcp = await startMcp({ baseUrl: api.url });
    const { c } = await creator("account-mcp");
    const client = await connectMcp(mcp, c.token);
    try {
      const live = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(live.includes("list_roles"));
      for (const operation of ACCOUNT_OPERATIONS) assert.ok(!live.includes(operation), `${operation} is not offered over MCP`);
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});
