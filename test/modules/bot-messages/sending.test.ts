// The bot message worker against the fake Telegram: queued messages reach the recipient once, cut
// to the manifest's max_length; a burst is paced (the manifest's burst at once, then one per
// min_interval, and one per per_recipient_interval to the same person); an unreachable platform is
// tried again later, Telegram's 429 waits its retry_after, a refusal fails for good; with Redis
// unreachable a message waits, unsent, for pacing to be read again.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { queueBotMessage } from "../../../src/modules/bot-messages/outbox.ts";
import { pacingOf } from "../../../src/modules/bot-messages/pacing.ts";
import { fitText, sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import type { Kv } from "../../../src/kv/kv.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { OutageKv } from "../../helpers/outages.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installationRow, installTelegram } from "../connectors/support.ts";

describe("the bot message worker", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  const telegram = repositoryConnectorRegistry().packages.get("telegram")!.manifest;
  let installation: { id: string; project_id: string; connector_key: string; team_id: string };
  let token: string;

  before(async () => {
    const project = suite.creator.projectIds[0]!;
    token = (await installTelegram(suite.client, project)).bot.token;
    installation = await installationRow(project);
  });

  async function queue(texts: { recipient: string; text: string }[], now: Date) {
    const { db } = await testDatabase();
    return db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(installation.team_id), now);
      const ids: string[] = [];
      for (const t of texts) ids.push((await queueBotMessage(ctx, { installation, purpose: "notice", ...t }))!);
      return ids;
    });
  }

  async function send(now: Date, kv: Kv) {
    const { db } = await testDatabase();
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    return sendDueBotMessages({ db, kv, env, logger: testLogger, now, installations: [installation.id] });
  }

  const sentBy = async (from: number) =>
    (await testPlatform()).calls.slice(from).filter((c) => c.name === "sendMessage" && c.bot === token.split(":")[0]);
  const user = () => String(randomInt(100_000_000, 999_999_999));

  it("sends a queued message once, and a dedupe key queues it once [claim telegram.capabilities.messaging]", async () => {
    const kv = await testKv();
    const now = new Date(Date.UTC(2031, 0, 1));
    const to = user();
    const { db } = await testDatabase();
    const ctx = createDomainContext(db, systemActor(installation.team_id), now);
    const first = await queueBotMessage(ctx, { installation, purpose: "notice", recipient: to, text: "Hello", dedupeKey: `k-${to}` });
    assert.equal(await queueBotMessage(ctx, { installation, purpose: "notice", recipient: to, text: "Hello", dedupeKey: `k-${to}` }), null);
    const mark = (await testPlatform()).calls.length;
    const outcomes = await send(now, kv);
    assert.deepEqual(
      outcomes.map((o) => o.result),
      ["sent"],
    );
    assert.deepEqual(
      (await sentBy(mark)).map((c) => [c.params.chat_id, c.params.text]),
      [[to, "Hello"]],
    );
    const row = await db("bot_messages").where({ id: first }).first();
    assert.equal(row.status, "sent");
    assert.equal(row.attempts, 1);
    assert.deepEqual(await send(now, kv), [], "nothing is sent twice");
  });

  it("cuts a message to the manifest's max_length", async () => {
    const max = telegram.messaging.max_length;
    assert.equal(fitText("a".repeat(max), max), "a".repeat(max));
    const cut = fitText("a".repeat(max + 10), max);
    assert.equal(cut.length, max);
    assert.ok(cut.endsWith("…"));
    assert.equal(fitText(`${"a".repeat(max - 2)}😀b`, max), `${"a".repeat(max - 2)}…`, "a surrogate pair is never split");
    const kv = await testKv();
    const now = new Date(Date.UTC(2031, 0, 2));
    await queue([{ recipient: user(), text: "x".repeat(max + 500) }], now);
    const mark = (await testPlatform()).calls.length;
    await send(now, kv);
    assert.equal(String((await sentBy(mark))[0]!.params.text).length, max);
  });

  it("paces a burst: the manifest's burst at once, then one per interval; one per recipient interval to one person [claim telegram.pacing.limits]", async () => {
    const pacing = pacingOf(telegram.pacing);
    assert.ok(pacing.burst >= 2 && pacing.minIntervalMs > 0 && pacing.perRecipientIntervalMs > 0, "Telegram's manifest paces");
    const kv = await testKv();
    const start = new Date(Date.UTC(2031, 0, 3));
    const extra = 5;
    const ids = await queue(
      Array.from({ length: pacing.burst + extra }, (_, i) => ({ recipient: user(), text: `burst ${i}` })),
      start,
    );
    let mark = (await testPlatform()).calls.length;
    const first = await send(start, kv);
    assert.equal(first.filter((o) => o.result === "sent").length, pacing.burst, "the burst goes at once");
    assert.equal(first.filter((o) => o.result === "deferred").length, extra, "the rest waits for its slot");
    assert.equal((await sentBy(mark)).length, pacing.burst);
    const { db } = await testDatabase();
    const waiting = await db("bot_messages").whereIn("id", ids).where({ status: "queued" });
    assert.equal(waiting.length, extra);
    assert.ok(
      waiting.every((r: { attempts: number }) => r.attempts === 0),
      "a paced message has not been attempted",
    );

    mark = (await testPlatform()).calls.length;
    const next = new Date(start.getTime() + Math.ceil(pacing.minIntervalMs));
    assert.equal((await send(next, kv)).filter((o) => o.result === "sent").length, 1, "one more per min_interval");
    const later = new Date(start.getTime() + Math.ceil(pacing.minIntervalMs * (extra + 1)));
    await send(later, kv);
    assert.equal((await db("bot_messages").whereIn("id", ids).where({ status: "sent" })).length, pacing.burst + extra);
    const texts = (await sentBy(mark)).map((c) => c.params.text);
    assert.deepEqual(
      texts,
      Array.from({ length: extra }, (_, i) => `burst ${pacing.burst + i}`),
      "in the order queued",
    );

    // Two messages to one person: the second waits the per-recipient interval.
    const to = user();
    const at = new Date(start.getTime() + 3_600_000);
    await queue(
      [
        { recipient: to, text: "one" },
        { recipient: to, text: "two" },
      ],
      at,
    );
    const results = (await send(at, kv)).map((o) => o.result);
    assert.deepEqual(results, ["sent", "deferred"]);
    assert.deepEqual(
      (await send(new Date(at.getTime() + Math.ceil(pacing.perRecipientIntervalMs)), kv)).map((o) => o.result),
      ["sent"],
    );
  });

  it("hands a message back unsent while pacing cannot be read (Redis unreachable), and sends it once Redis answers", async () => {
    const kv = new OutageKv();
    kv.down = true;
    const now = new Date(Date.UTC(2031, 0, 3, 12));
    const to = user();
    const [id] = await queue([{ recipient: to, text: "after the outage" }], now);
    const mark = (await testPlatform()).calls.length;
    assert.deepEqual(
      (await send(now, kv)).map((o) => o.result),
      ["deferred"],
    );
    const { db } = await testDatabase();
    const row = await db("bot_messages").where({ id }).first();
    assert.deepEqual([row.status, row.attempts], ["queued", 0]);
    kv.down = false;
    assert.deepEqual(
      (await send(new Date(row.next_attempt_at), kv)).map((o) => o.result),
      ["sent"],
    );
    assert.deepEqual(
      (await sentBy(mark)).map((c) => c.params.chat_id),
      [to],
      "sent once, after the outage",
    );
  });

  it("tries an unreachable platform again later and fails a refusal for good", async () => {
    const kv = await testKv();
    const fake = await testPlatform();
    const now = new Date(Date.UTC(2031, 0, 4));
    const [id] = await queue([{ recipient: user(), text: "retry me" }], now);
    fake.delay(10_000);
    const { db } = await testDatabase();
    try {
      const env = {
        connectors: repositoryConnectorRegistry(),
        platforms: { ...(await testPlatformEndpoints()), timeoutMs: 200 },
        appKey: TEST_APP_KEY,
      };
      const outcomes = await sendDueBotMessages({ db, kv, env, logger: testLogger, now, installations: [installation.id] });
      assert.deepEqual(
        outcomes.map((o) => o.result),
        ["retry"],
      );
    } finally {
      fake.delay(0);
    }
    const row = await db("bot_messages").where({ id }).first();
    assert.equal(row.status, "queued");
    assert.equal(row.attempts, 1);
    assert.ok(new Date(row.next_attempt_at) > now, "due later");
    assert.deepEqual(await send(now, kv), [], "not before its retry time");
    assert.deepEqual(
      (await send(new Date(row.next_attempt_at), kv)).map((o) => o.result),
      ["sent"],
    );

    // Telegram's own rate limit (429, retry_after): the message waits as long as it asks, unsent and not counted as an attempt.
    const throttledAt = new Date(now.getTime() + 1_800_000);
    const [throttledId] = await queue([{ recipient: user(), text: "slow down" }], throttledAt);
    fake.throttleTelegramBot(token, 7);
    assert.deepEqual(
      (await send(throttledAt, kv)).map((o) => o.result),
      ["deferred"],
    );
    const throttledRow = await db("bot_messages").where({ id: throttledId }).first();
    assert.deepEqual([throttledRow.status, throttledRow.attempts], ["queued", 0]);
    assert.equal(new Date(throttledRow.next_attempt_at).getTime(), throttledAt.getTime() + 7_000);
    assert.deepEqual(
      (await send(new Date(throttledAt.getTime() + 7_000), kv)).map((o) => o.result),
      ["sent"],
    );

    // Last: the bot stays revoked for the rest of this file.
    fake.revokeTelegramToken(token);
    const hourLater = new Date(now.getTime() + 3_600_000);
    const [refused] = await queue([{ recipient: user(), text: "refused" }], hourLater);
    assert.deepEqual(
      (await send(hourLater, kv)).map((o) => o.result),
      ["failed"],
    );
    assert.equal((await db("bot_messages").where({ id: refused }).first()).status, "failed");
  });
});
