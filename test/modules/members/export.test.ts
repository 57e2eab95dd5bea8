// export_members: the list's filters and a joined_at window as a CSV download (RFC 4180 quoting,
// formula defusing, ISO times), tenancy and ability refusals, 422 on a bad filter, the SDK method
// resolving to the text, and a large export read in chunks.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { expectCredentialRefusals, subscribedMember } from "../subscriptions/commerce.ts";
import { createClient } from "../../../sdk/src/index.ts";

interface SeededMember {
  name: string;
  email?: string | null;
  status?: string;
  joinedAt?: Date | null;
  createdAt?: Date;
}

/** Members written straight into the table (one statement per 1,000). */
export async function seedMembers(creator: TestCreator, projectId: string, members: SeededMember[]): Promise<string[]> {
  const { db } = await testDatabase();
  const rows = members.map((m, i) => ({
    id: randomUUID(),
    team_id: creator.teamId,
    project_id: projectId,
    connector_key: "telegram",
    external_user_id: `${Date.now()}${i}${Math.random().toString().slice(2, 8)}`,
    display_name: m.name,
    email: m.email ?? null,
    status: m.status ?? "lead",
    joined_at: m.joinedAt ?? null,
    created_at: m.createdAt ?? new Date(Date.UTC(2026, 0, 1) + i * 1000),
    updated_at: new Date(),
  }));
  for (let i = 0; i < rows.length; i += 1000) await db("members").insert(rows.slice(i, i + 1000));
  return rows.map((r) => r.id);
}

const csv = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

describe("export_members", () => {
  const suite = useApiWithCreator({ creator: { label: "members-export", projects: 2 } });
  const path = (project: string) => `/v1/projects/${project}/members/export`;

  it("answers every matching member as CSV: quoting, defused formulas, ISO times, the download's name", async () => {
    const creator = await createTestCreator({ label: "export-quoting" });
    const project = creator.projectIds[0]!;
    const joined = new Date("2026-03-01T10:00:00.000Z");
    await seedMembers(creator, project, [
      { name: 'Lin "the, first"\nline two', email: "lin@example.test", status: "customer", joinedAt: joined },
      { name: '=HYPERLINK("http://x")', status: "churned", joinedAt: new Date("2026-04-01T00:00:00.000Z") },
      { name: "+1 caller" },
      { name: "-2+3" },
      { name: "@SUM(A1)" },
      { name: "\tTabbed" },
    ]);
    const res = await suite.client.withToken(creator.token).get(path(project));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
    const { db } = await testDatabase();
    const { handle } = await db("projects").where({ id: project }).first("handle");
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(res.headers.get("content-disposition"), `attachment; filename="${handle}-members-${today}.csv"`);
    const text = res.body as string;
    assert.match(
      text,
      /^id,display_name,email,status,access_state,connector_key,external_user_id,plan_ids,plans,joined_at,created_at,banned_at,ban_reason\r\n/,
    );
    assert.ok(text.includes('"Lin ""the, first""\nline two"'), "RFC 4180: quotes doubled, the cell quoted");
    const rows = csv(text);
    assert.deepEqual(
      rows.map((r) => r.display_name),
      ["'\tTabbed", "'@SUM(A1)", "'-2+3", "'+1 caller", '\'=HYPERLINK("http://x")', 'Lin "the, first"\nline two'],
      "newest first; every formula start defused with a single quote",
    );
    const lin = rows[5]!;
    assert.deepEqual(
      [lin.email, lin.status, lin.joined_at, lin.access_state, lin.plans],
      ["lin@example.test", "customer", joined.toISOString(), "none", ""],
    );
    assert.equal(rows[0]!.joined_at, "", "a lead never joined: the cell is empty");
  });

  it("applies the list's filters and the joined_at window", async () => {
    const creator = await createTestCreator({ label: "export-filters" });
    const client = suite.client.withToken(creator.token);
    const sub = await subscribedMember(creator);
    const project = sub.plan.projectId;
    await seedMembers(creator, project, [
      { name: "Early", status: "churned", joinedAt: new Date("2026-01-05T00:00:00.000Z") },
      { name: "Middle", status: "churned", joinedAt: new Date("2026-02-05T00:00:00.000Z"), email: "mid@example.test" },
      { name: "Lead" },
    ]);
    const names = async (query: string) => csv((await client.get(`${path(project)}?${query}`)).body).map((r) => r.display_name);
    assert.equal((await names("")).length, 4);
    assert.deepEqual(await names("status=churned"), ["Middle", "Early"]);
    assert.deepEqual(await names("q=MID@"), ["Middle"]);
    assert.deepEqual(await names("from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z"), ["Middle"], "from inclusive, to exclusive");
    const onPlan = csv((await client.get(`${path(project)}?plan_id=${sub.plan.planId}`)).body);
    assert.deepEqual(
      onPlan.map((r) => [r.id, r.plan_ids, r.access_state !== ""]),
      [[sub.member.id, sub.plan.planId, true]],
    );
    assert.deepEqual(await names("platform=discord"), []);
    assert.equal(
      (await client.get(`${path(project)}?platform=discord`)).body,
      "id,display_name,email,status,access_state,connector_key,external_user_id,plan_ids,plans,joined_at,created_at,banned_at,ban_reason\r\n",
    );
  });

  it("refuses a bad filter (422), a foreign project (404), a missing ability (403)", async () => {
    const project = suite.creator.projectIds[0]!;
    const bad = expectError(await suite.client.get(`${path(project)}?from=yesterday&status=gone`), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(bad.fields).sort(), ["from", "status"]);
    const stranger = await createTestCreator({ label: "export-stranger" });
    expectError(await suite.client.withToken(stranger.token).get(path(project)), 404, "RESOURCE_NOT_FOUND");
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: path(project), ability: "project-user:view-any" });
  });

  it("the SDK's members.export resolves to the CSV text", async () => {
    const creator = await createTestCreator({ label: "export-sdk" });
    await seedMembers(creator, creator.projectIds[0]!, [{ name: "Sdk", status: "churned", joinedAt: new Date("2026-01-01T00:00:00Z") }]);
    const sb = createClient({ baseUrl: suite.api.url, token: creator.token });
    const text = await sb.members.export(creator.projectIds[0]!, { status: "churned" });
    assert.equal(typeof text, "string");
    assert.deepEqual(
      csv(text).map((r) => r.display_name),
      ["Sdk"],
    );
    await assert.rejects(sb.members.export(randomUUID()), (err: Error & { status?: number }) => err.status === 404);
  });

  it("streams a large export in chunks of 1,000 without holding it: 5,000 rows, each once, newest first", async () => {
    const creator = await createTestCreator({ label: "export-large" });
    const project = creator.projectIds[0]!;
    // Rows sharing a created_at across a chunk's edge: the keyset's id tie-breaker keeps each once.
    const same = new Date(Date.UTC(2026, 0, 1) + 1000 * 1000);
    const ids = await seedMembers(
      creator,
      project,
      Array.from({ length: 5000 }, (_, i) => ({ name: `M${i}`, createdAt: i >= 990 && i < 1010 ? same : new Date(Date.UTC(2026, 0, 1) + i * 1000) })),
    );
    const res = await fetch(`${suite.api.url}${path(project)}`, { headers: { authorization: `Bearer ${creator.token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-length"), null, "sent in chunks, its length unknown up front");
    const rows = csv(await res.text());
    assert.equal(rows.length, 5000);
    assert.equal(new Set(rows.map((r) => r.id)).size, 5000);
    assert.deepEqual(new Set(rows.map((r) => r.id)), new Set(ids));
    assert.equal(rows[0]!.display_name, "M4999");
  });
});
