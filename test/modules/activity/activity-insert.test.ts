// Activity rows travel to PostgreSQL as one JSON value (activityInsert): a batch of any size is one
// statement, and text that JSON carries but PostgreSQL would refuse (NUL, unpaired surrogates) is
// stored replaced, never failing the change it records.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { activityInsert, activityLog, activityRow, recordActivity } from "../../../src/modules/activity/activity-log.ts";

describe("activity rows as one JSON value", () => {
  it("stores every field as it was recorded, properties as JSON", async () => {
    const { db } = await testDatabase();
    const teamId = randomUUID();
    const ctx = createDomainContext(
      db,
      { ...systemActor(teamId), userId: "u1", kind: "mcp", credentialKind: "personal_access_token", requestId: "r1" },
      new Date("2026-11-26T08:00:00.123Z"),
    );
    await recordActivity(ctx, {
      event: "created",
      description: "Thing made",
      subjectType: "project",
      subjectId: "s1",
      properties: { n: 1, list: ["a"], nested: { ok: true } },
    });
    const row = await db("activity_log").where({ team_id: teamId }).first();
    assert.equal(row.description, "Thing made");
    assert.equal(row.causer_type, "user");
    assert.equal(row.causer_id, "u1");
    assert.equal(row.actor_kind, "mcp");
    assert.equal(row.credential_kind, "personal_access_token");
    assert.equal(row.request_id, "r1");
    assert.deepEqual(row.properties, { n: 1, list: ["a"], nested: { ok: true } });
    assert.equal(new Date(row.created_at).toISOString(), "2026-11-26T08:00:00.123Z");
  });

  it("writes a batch of many rows with one statement", async () => {
    const { db } = await testDatabase();
    const teamId = randomUUID();
    const ctx = createDomainContext(db, systemActor(teamId), new Date());
    const rows = Array.from({ length: 300 }, (_, i) =>
      activityLog.own(ctx, activityRow(ctx, { event: "e", description: `d${i}`, subjectType: "team", subjectId: teamId })),
    );
    const { sql, bindings } = activityInsert(rows);
    assert.equal(bindings.length, 1);
    await db.raw(sql, bindings);
    assert.equal(Number((await db("activity_log").where({ team_id: teamId }).count({ n: "*" }))[0]!.n), 300);
  });

  it("gives entries of the same instant `seq` in the order they were recorded (newest first reads them back reversed)", async () => {
    const { db } = await testDatabase();
    const teamId = randomUUID();
    const now = new Date();
    await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(teamId), now);
      for (const n of [3, 1, 2]) await recordActivity(ctx, { event: "e", description: `entry ${n}`, subjectType: "team", subjectId: teamId });
    });
    const ctx = createDomainContext(db, systemActor(teamId), now);
    const batch = ["b", "a", "c"].map((n) =>
      activityLog.own(ctx, activityRow(ctx, { event: "e", description: `batch ${n}`, subjectType: "team", subjectId: teamId })),
    );
    const { sql, bindings } = activityInsert(batch);
    await db.raw(sql, bindings);
    const newestFirst = (await db("activity_log")
      .where({ team_id: teamId })
      .orderBy([
        { column: "created_at", order: "desc" },
        { column: "seq", order: "desc" },
      ])
      .pluck("description")) as string[];
    assert.deepEqual(newestFirst, ["batch c", "batch a", "batch b", "entry 2", "entry 1", "entry 3"]);
  });

  it("stores text PostgreSQL refuses (NUL, an unpaired surrogate) replaced, and the change still commits", async () => {
    const { db } = await testDatabase();
    const teamId = randomUUID();
    await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(teamId), new Date());
      await recordActivity(ctx, {
        event: "renamed",
        description: "a\u0000b\ud800c",
        subjectType: "team",
        subjectId: "x\udc00",
        properties: { name: "n\u0000\ud800" },
      });
    });
    const row = await db("activity_log").where({ team_id: teamId }).first();
    assert.equal(row.description, "a\uFFFDb\uFFFDc");
    assert.equal(row.subject_id, "x\uFFFD");
    assert.equal(row.properties.name, "n\uFFFD\uFFFD");
  });
});
