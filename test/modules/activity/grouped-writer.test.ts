// The group-commit writer of entries that join no transaction (MCP reads and refusals): recorded
// entries are written after their callers went on, together, retried when a batch fails and logged
// when they cannot be written; `write` waits for its commit, `drain` for everything, and a writer
// that falls behind makes `record` wait rather than letting its queue grow.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { createDomainContext, systemActor, type DomainContext } from "../../../src/db/tenant.ts";
import { GroupedActivityWriter, type GroupedWriterOptions } from "../../../src/modules/activity/grouped-writer.ts";
import type { ActivityInput } from "../../../src/modules/activity/activity-log.ts";
import { loadConfig } from "../../../src/config.ts";
import { openServices } from "../../../src/services.ts";
import { tempDir } from "../../helpers/processes.ts";

interface Logged {
  obj: Record<string, unknown>;
  msg: string;
}

describe("grouped activity writer", () => {
  let teamId: string;
  let ctx: DomainContext;
  const logged: Logged[] = [];
  const logger = { error: (obj: Record<string, unknown>, msg: string) => void logged.push({ obj, msg }) } as never;

  const entry = (description: string, event = "tool_invoked"): ActivityInput => ({ event, description, subjectType: "team", subjectId: teamId });
  const writer = async (options: GroupedWriterOptions = {}) => new GroupedActivityWriter((await testDatabase()).db, logger, options);
  const stored = async (event = "tool_invoked") =>
    (await (await testDatabase()).db("activity_log").where({ team_id: teamId, event }).orderBy("seq").select("description")).map(
      (r: { description: string }) => r.description,
    );

  before(async () => {
    const { db } = await testDatabase();
    // Statements whose rows name these events fail: "flaky" twice (a sequence is not rolled back
    // with the statement that used it), "broken" always.
    await db.raw("create sequence if not exists grouped_writer_flaky");
    await db.raw(`create or replace function grouped_writer_refuse() returns trigger language plpgsql as $$
      begin
        if new.event = 'broken' or (new.event = 'flaky' and nextval('grouped_writer_flaky') <= 2) then
          raise exception 'refused by the test trigger';
        end if;
        return new;
      end $$`);
    await db.raw("create trigger grouped_writer_refuse before insert on activity_log for each row execute function grouped_writer_refuse()");
  });
  after(async () => {
    const { db } = await testDatabase();
    await db.raw("drop trigger if exists grouped_writer_refuse on activity_log");
    await db.raw("drop function if exists grouped_writer_refuse()");
    await db.raw("drop sequence if exists grouped_writer_flaky");
  });
  beforeEach(async () => {
    teamId = randomUUID();
    ctx = createDomainContext((await testDatabase()).db, systemActor(teamId), new Date());
    logged.length = 0;
  });

  it("records without waiting, and drain resolves once every recorded entry is stored, in the order recorded", async () => {
    const w = await writer();
    const names = Array.from({ length: 40 }, (_, i) => `entry ${i}`);
    for (const name of names) assert.equal(w.record(ctx, entry(name)), undefined, "the caller is not made to wait");
    await w.drain();
    assert.deepEqual(await stored(), names);
    await w.drain(); // an idle writer drains at once
  });

  it("writes at once when drained, however long recorded entries would otherwise gather", async () => {
    const w = await writer({ flushDelayMs: 3_600_000 });
    w.record(ctx, entry("gathering"));
    const started = Date.now();
    await w.drain();
    assert.ok(Date.now() - started < 60_000, "drain did not wait for the flush delay");
    assert.deepEqual(await stored(), ["gathering"]);
  });

  it("resolves write only once its entry is committed", async () => {
    const w = await writer({ flushDelayMs: 3_600_000 });
    w.record(ctx, entry("recorded first"));
    await w.write(ctx, entry("waited for"));
    assert.deepEqual(await stored(), ["recorded first", "waited for"], "a write also takes what was gathering with it");
  });

  it("waits for an entry still in the making, and logs one that could not be made", async () => {
    const w = await writer();
    let make!: (made: ActivityInput) => void;
    w.record(ctx, new Promise<ActivityInput>((resolve) => (make = resolve)));
    w.record(ctx, Promise.reject(new Error("lookup failed")));
    const drained = w.drain();
    setTimeout(() => make(entry("made later")), 20);
    await drained;
    assert.deepEqual(await stored(), ["made later"]);
    assert.deepEqual(
      logged.map((l) => l.msg),
      ["an activity entry could not be made"],
    );
  });

  it("retries a batch that failed, and the entries are written once it goes through", async () => {
    const w = await writer({ retryDelaysMs: [1, 1, 1] });
    w.record(ctx, entry("survives two failures", "flaky"));
    await w.drain();
    assert.deepEqual(await stored("flaky"), ["survives two failures"]);
    assert.deepEqual(logged, []);
  });

  it("gives up after the last retry: recorded entries are logged in full, a waiting write is rejected", async () => {
    const w = await writer({ retryDelaysMs: [1] });
    w.record(ctx, entry("lost", "broken"));
    await assert.rejects(w.write(ctx, entry("refused", "broken")), /refused by the test trigger/);
    await w.drain();
    assert.deepEqual(await stored("broken"), []);
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.msg, "activity entries could not be written");
    const entries = logged[0]!.obj.entries as Record<string, unknown>[];
    assert.deepEqual(
      entries.map((e) => [e.description, e.team_id]),
      [["lost", teamId]],
      "only the entry nobody waited for is logged; the write's caller learned of its failure",
    );
  });

  it("makes record wait for its entry once maxQueued entries are waiting", async () => {
    const w = await writer({ maxQueued: 2, flushDelayMs: 3_600_000 });
    assert.equal(w.record(ctx, entry("a")), undefined);
    assert.equal(w.record(ctx, entry("b")), undefined);
    const waited = w.record(ctx, entry("c"));
    assert.ok(waited instanceof Promise, "the third caller waits");
    await waited;
    assert.deepEqual(await stored(), ["a", "b", "c"], "its entry, and those queued before it, are committed when it resumes");
  });
});

describe("the process's activity writer on shutdown", function () {
  this.timeout(60_000);

  it("writes what was recorded before Services.close() closes the database", async () => {
    const config = loadConfig({ DATA_DIR: tempDir("writer-drain"), LOG_LEVEL: "silent" }, "1");
    const teamId = randomUUID();
    const first = await openServices(config);
    const ctx = createDomainContext(first.db, systemActor(teamId), new Date());
    for (let i = 0; i < 3; i++)
      first.activity.record(ctx, { event: "tool_invoked", description: `last call ${i}`, subjectType: "team", subjectId: teamId });
    await first.close(); // at once: the entries are still gathering
    const second = await openServices(config);
    try {
      const rows = await second.db("activity_log").where({ team_id: teamId }).orderBy("seq").select("description");
      assert.deepEqual(
        rows.map((r: { description: string }) => r.description),
        ["last call 0", "last call 1", "last call 2"],
      );
    } finally {
      await second.close();
    }
  });
});
