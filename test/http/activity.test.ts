// The activity log: every mutation writes its entry in the same transaction; GET /v1/activity
// with all its rules (aliases, limit, newest first, 404s, redaction at any depth).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { testDatabase } from "../helpers/backends.ts";
import { mintToken } from "../../src/modules/tokens/tokens.ts";
import { recordActivity, redactSecrets } from "../../src/modules/activity/activity-log.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { creatorContext } from "../../src/pipeline/context.ts";

describe("activity log", () => {
  const suite = useApiWithCreator();

  async function record(subjectType: string, subjectId: string, event: string, properties: Record<string, unknown> = {}, at = new Date()) {
    const { db } = await testDatabase();
    await recordActivity(createDomainContext(db, systemActor(suite.creator.teamId), at), {
      event,
      description: `${subjectType} ${event}`,
      subjectType,
      subjectId,
      projectId: suite.creator.projectIds[0]!,
      properties,
    });
  }

  it("writes the entry of a REST mutation with actor, causer, credential and request id", async () => {
    const res = await suite.client.post("/v1/tokens", { name: "audited", abilities: ["team:view"] });
    const { db } = await testDatabase();
    const entry = await db("activity_log").where({ subject_type: "token", subject_id: res.body.data.id }).first();
    assert.equal(entry.event, "created");
    assert.equal(entry.actor_kind, "api_token");
    assert.equal(entry.causer_type, "user");
    assert.equal(entry.causer_id, suite.creator.userId);
    assert.equal(entry.credential_kind, "personal_access_token");
    assert.equal(entry.request_id, res.headers.get("x-request-id"));
    assert.equal(entry.team_id, suite.creator.teamId);
    assert.deepEqual(entry.properties.abilities, ["team:view"]);
  });

  it("commits a mutation and its entry together or not at all", async () => {
    const failing = await startApi({
      handlers: {
        async create_token(input, ctx) {
          await mintToken(creatorContext(ctx), { name: "rolled back", abilities: input.body.abilities }, ctx.principal!.abilities);
          throw new Error("the process died after the insert");
        },
      },
    });
    try {
      expectError(
        await new ApiClient(failing.url, suite.creator.token).post("/v1/tokens", { name: "rolled back", abilities: ["team:view"] }),
        500,
        "INTERNAL_SERVER_ERROR",
      );
      const { db } = await testDatabase();
      assert.equal((await db("personal_access_tokens").where({ name: "rolled back" })).length, 0);
      assert.equal((await db("activity_log").whereRaw("properties->>'name' = ?", ["rolled back"])).length, 0);
    } finally {
      await failing.close();
    }
  });

  it("reads a subject's entries newest first, with meta", async () => {
    const project = suite.creator.projectIds[0]!;
    const base = Date.now();
    await record("project", project, "renamed", {}, new Date(base + 1000));
    await record("project", project, "archived", {}, new Date(base + 2000));
    const res = await suite.client.get(`/v1/activity?subject_type=project&subject_id=${project}`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((e: { event: string }) => e.event),
      // The project came with its access-codes payment method, whose entry is the project's.
      ["archived", "renamed", "payment_method_created", "created"],
    );
    assert.deepEqual(res.body.meta, { subject_type: "project", subject_id: project, limit: 50, count: 4 });
    const created = res.body.data[3];
    assert.equal(created.actor_kind, "system");
    assert.equal(created.causer_type, "user");
    assert.equal(created.causer_id, suite.creator.userId);
    assert.equal(created.project_id, project);
  });

  it("accepts the aliases and their synonyms", async () => {
    const pairs: [string, string, string][] = [
      ["subscription", "project-subscription", "subscription"],
      ["member", "project-user", "member"],
      ["plan", "project-subscription-plan", "plan"],
      ["access-code", "access-code", "access-code"],
      ["coupon", "coupon", "coupon"],
      ["project-resource", "project-resource", "project-resource"],
    ];
    for (const [short, long, stored] of pairs) {
      const id = randomUUID();
      await record(stored, id, "created");
      for (const alias of [short, long]) {
        const res = await suite.client.get(`/v1/activity?subject_type=${alias}&subject_id=${id}`);
        assert.equal(res.status, 200, alias);
        assert.equal(res.body.data.length, 1, alias);
        assert.equal(res.body.data[0].subject_type, stored);
        assert.equal(res.body.meta.subject_type, stored);
      }
    }
    const team = await suite.client.get(`/v1/activity?subject_type=team&subject_id=${suite.creator.teamId}`);
    assert.equal(team.body.data.at(-1).event, "created");
  });

  it("returns at most limit entries: default 50, 1 to 200, above 200 refused", async () => {
    const id = randomUUID();
    const { db } = await testDatabase();
    const rows = Array.from({ length: 205 }, (_, i) => ({
      id: randomUUID(),
      team_id: suite.creator.teamId,
      project_id: suite.creator.projectIds[0],
      event: `e${i}`,
      description: "bulk",
      subject_type: "member",
      subject_id: id,
      actor_kind: "system",
      properties: "{}",
      created_at: new Date(Date.now() + i),
    }));
    await db.batchInsert("activity_log", rows, 100);
    assert.equal((await suite.client.get(`/v1/activity?subject_type=member&subject_id=${id}`)).body.data.length, 50);
    const max = await suite.client.get(`/v1/activity?subject_type=member&subject_id=${id}&limit=200`);
    assert.equal(max.body.data.length, 200);
    assert.equal(max.body.data[0].event, "e204");
    assert.equal((await suite.client.get(`/v1/activity?subject_type=member&subject_id=${id}&limit=1`)).body.data[0].event, "e204");
    assert.deepEqual(
      expectError(await suite.client.get(`/v1/activity?subject_type=member&subject_id=${id}&limit=201`), 422, "VALIDATION_FAILED").fields,
      {
        limit: ["must be at most 200"],
      },
    );
    expectError(await suite.client.get(`/v1/activity?subject_type=member&subject_id=${id}&limit=0`), 422, "VALIDATION_FAILED");
  });

  it("refuses a missing parameter, an unknown alias, a class name and a non-uuid id with 422", async () => {
    const project = suite.creator.projectIds[0]!;
    const cases: Record<string, string[]> = {
      [`subject_id=${project}`]: ["subject_type"],
      "subject_type=project": ["subject_id"],
      [`subject_type=${encodeURIComponent("App\\Models\\Project")}&subject_id=${project}`]: ["subject_type"],
      [`subject_type=projects&subject_id=${project}`]: ["subject_type"],
      "subject_type=project&subject_id=42": ["subject_id"],
      [`subject_type=project&subject_id=${project.toUpperCase()}`]: ["subject_id"],
    };
    for (const [query, fields] of Object.entries(cases)) {
      const error = expectError(await suite.client.get(`/v1/activity?${query}`), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields), fields, query);
    }
  });

  it("answers 404 RESOURCE_NOT_FOUND for a subject the team never recorded", async () => {
    expectError(await suite.client.get(`/v1/activity?subject_type=project&subject_id=${randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("removes secret-like properties at any depth, case-insensitively, before storing and answering", async () => {
    const id = randomUUID();
    await record("coupon", id, "created", {
      name: "SPRING",
      Token: "t1",
      api_secret: "s1",
      nested: { API_KEY: "k1", list: [{ password: "p1", keep: 1 }, "plain"], client_secret: "s2", access_token: "t2", Api_Key_Hint: "k2" },
    });
    const { db } = await testDatabase();
    const stored = await db("activity_log").where({ subject_id: id }).first();
    assert.deepEqual(stored.properties, { name: "SPRING", nested: { list: [{ keep: 1 }, "plain"] } });
    const res = await suite.client.get(`/v1/activity?subject_type=coupon&subject_id=${id}`);
    assert.deepEqual(res.body.data[0].properties, { name: "SPRING", nested: { list: [{ keep: 1 }, "plain"] } });
  });

  it("redacts again when reading, for entries written before a rule existed", async () => {
    const id = randomUUID();
    const { db } = await testDatabase();
    await db("activity_log").insert({
      id: randomUUID(),
      team_id: suite.creator.teamId,
      project_id: suite.creator.projectIds[0],
      event: "imported",
      description: "legacy row",
      subject_type: "plan",
      subject_id: id,
      actor_kind: "system",
      properties: JSON.stringify({ deep: { PASSWORD: "x", ok: true } }),
      created_at: new Date(),
    });
    const res = await suite.client.get(`/v1/activity?subject_type=plan&subject_id=${id}`);
    assert.deepEqual(res.body.data[0].properties, { deep: { ok: true } });
    assert.deepEqual(redactSecrets({ a: [{ secretValue: 1, b: 2 }] }), { a: [{ b: 2 }] });
  });
});
