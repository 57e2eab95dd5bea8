// A name is one line (issue 43: a team name with line breaks and links went verbatim into invitation
// mail to any address). Every name a request sets (teams, projects, plans, roles, groups, tokens,
// resources' titles...) uses the spec's one-line pattern, so the generated validators refuse control
// characters, line breaks and bidirectional overrides with 422 VALIDATION_FAILED naming the field,
// on REST and MCP alike; the sign-up page's team name follows the same rule.
import assert from "node:assert/strict";
import type { Client, CallToolResult } from "@modelcontextprotocol/client";
import { signUpProblems } from "../../src/modules/account/sign-ups.ts";
import { NUL_MESSAGE } from "../../src/pipeline/input-safety.ts";
import { isOneLine, ONE_LINE_MESSAGE, ONE_LINE_PATTERN, oneLine } from "../../src/one-line.ts";
import { expectError, openapi } from "../helpers/http.ts";
import { connectMcp, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { useApiWithCreator } from "../helpers/suite.ts";

type Json = Record<string, any>;

/** Names that must be refused, each with what it smuggles. */
const NOT_ONE_LINE = [
  "Night Owls\n\nClick https://evil.example/login to keep your seat",
  "Night Owls\r\nBcc: someone@example.com",
  "Tab\there",
  "Nul\u0000",
  "Bell\u0007",
  "Next line\u0085here",
  "Line\u2028separator",
  "Paragraph\u2029separator",
  "Override \u202Egnp.exe",
  "Isolate \u2066x\u2069",
];
/** Names that stay accepted: one line, any script, emoji, punctuation. */
const ONE_LINE = ["Ada's team", "Совы ночи 🦉", "夜のフクロウ", 'A & B <c> "d" — e', "https://example.com is our site"];

/** Titles no mail, bot message or page outside the dashboard shows, with why. */
const NOT_NAMES: Record<string, string> = {
  "create_canned_reply.title": "a canned reply's title only labels it for its team; its body is what members read",
  "update_canned_reply.title": "as create_canned_reply",
};

/** The request body fields of `op` (resolved), by dotted name. */
function bodyFields(op: Json): Map<string, Json> {
  const resolve = (s: Json): Json =>
    s?.$ref
      ? resolve(
          s.$ref
            .slice(2)
            .split("/")
            .reduce((o: Json, k: string) => o[k], openapi),
        )
      : s;
  const fields = new Map<string, Json>();
  const schema = resolve(op.requestBody?.content?.["application/json"]?.schema);
  for (const [name, field] of Object.entries<Json>(schema?.properties ?? {})) fields.set(name, resolve(field));
  return fields;
}

describe("names are one line", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator();

  it("the spec's pattern and the server's are one rule", () => {
    assert.equal(openapi.components.schemas.Name.pattern, ONE_LINE_PATTERN);
    const pattern = new RegExp(ONE_LINE_PATTERN, "u");
    for (const name of NOT_ONE_LINE) assert.equal(pattern.test(name) || isOneLine(name), false, JSON.stringify(name));
    for (const name of ONE_LINE) assert.equal(pattern.test(name) && isOneLine(name), true, name);
    assert.equal(oneLine("Night Owls\n\nClick\u202Ehere\u0000"), "Night Owls Click here ");
  });

  it("every name or title a request body sets takes only one line", () => {
    const unchecked: string[] = [];
    let checked = 0;
    for (const methods of Object.values<Json>(openapi.paths))
      for (const op of Object.values<Json>(methods)) {
        if (!op?.operationId) continue;
        for (const [name, field] of bodyFields(op)) {
          if ((name !== "name" && name !== "title") || `${op.operationId}.${name}` in NOT_NAMES) continue;
          checked++;
          if (field.pattern !== ONE_LINE_PATTERN) unchecked.push(`${op.operationId}.${name}`);
        }
      }
    assert.ok(checked >= 20, `checked ${checked}`);
    assert.deepEqual(unchecked, []);
  });

  it("REST refuses a name that is not one line with 422 naming the field, and takes one that is", async () => {
    const team = `/v1/teams/${suite.creator.teamId}`;
    const project = `/v1/projects/${suite.creator.projectIds[0]}`;
    for (const name of NOT_ONE_LINE) {
      for (const [method, path, body] of [
        ["PATCH", team, { name }],
        ["POST", "/v1/teams", { name }],
        ["PATCH", project, { name }],
        ["POST", "/v1/tokens", { name, abilities: ["team:view"] }],
      ] as const) {
        const res = await suite.client.request(method, path, { body });
        const error = expectError(res, 422, "VALIDATION_FAILED");
        assert.deepEqual(Object.keys(error.fields), ["name"], `${method} ${path} ${JSON.stringify(name)}`);
        // A NUL is refused as such (no column stores it), without restating the one-line rule.
        assert.deepEqual(error.fields.name, [name.includes("\u0000") ? NUL_MESSAGE : ONE_LINE_MESSAGE], `${method} ${path}`);
      }
    }
    assert.notEqual((await suite.client.get(team)).body.data.name, NOT_ONE_LINE[0]);
    for (const name of ONE_LINE) {
      const res = await suite.client.patch(team, { name });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.name, name);
    }
  });

  describe("over MCP", () => {
    let mcp: RunningMcp;
    let client: Client;
    before(async () => {
      mcp = await startMcp({ baseUrl: suite.api.url });
      client = await connectMcp(mcp, suite.creator.token);
    });
    after(async () => {
      await client?.close();
      await mcp?.close();
    });

    it("refuses the same names with VALIDATION_FAILED naming the field", async () => {
      for (const name of NOT_ONE_LINE.slice(0, 3)) {
        const result = (await client.callTool({ name: "update_team", arguments: { team: suite.creator.teamId, name } })) as CallToolResult;
        assert.equal(result.isError, true);
        const { error } = result.structuredContent as { error: Json };
        assert.equal(error.code, "VALIDATION_FAILED");
        assert.deepEqual(error.fields, { name: [ONE_LINE_MESSAGE] });
      }
    });
  });

  it("the sign-up page's team name follows the same rule", () => {
    const form = { email: "ada@example.com", password: "correct horse battery" };
    for (const teamName of NOT_ONE_LINE)
      assert.match(signUpProblems({ ...form, teamName }).team_name ?? "", /must be one line/, JSON.stringify(teamName));
    for (const teamName of ONE_LINE) assert.deepEqual(signUpProblems({ ...form, teamName }), {});
  });
});
