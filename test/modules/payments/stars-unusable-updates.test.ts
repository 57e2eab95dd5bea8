// Telegram updates the service cannot use answer 200 and a warning, never a 500 (issue 43): Telegram
// retries any other answer for a day. A NUL in a Stars charge id (or in any text of an update) can be
// stored in no column, so the update is ignored and nothing is written; a pre-checkout query Telegram
// no longer takes an answer for (too old, or unknown) leaves nothing charged.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import pino from "pino";
import { updatesSecret } from "../../../src/modules/connectors/bot/session.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, installationRow } from "../connectors/support.ts";

describe("payments: Telegram updates the service cannot use", function () {
  this.timeout(60_000);
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const suite = useApiWithCreator({ api: { logger }, creator: { tier: "growth" } });
  let installationId: string;

  before(async () => {
    const project = suite.creator.projectIds[0]!;
    await installTelegram(suite.client, project);
    installationId = (await installationRow(project)).id;
  });
  beforeEach(() => (lines.length = 0));

  const post = (update: unknown) =>
    fetch(`${suite.api.url}/connectors/telegram/${installationId}/updates`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, installationId) },
      body: JSON.stringify(update),
    });

  /** Asserts the answer is Telegram's 200, and that the log has a warning and no error. */
  async function readWithAWarning(res: Response, warning: RegExp) {
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), {});
    assert.deepEqual(
      lines.filter((l) => Number(l.level) >= 50),
      [],
    );
    assert.ok(
      lines.some((l) => l.level === 40 && warning.test(String(l.msg))),
      JSON.stringify(lines.map((l) => [l.level, l.msg])),
    );
  }

  const message = (userId: number, extra: Record<string, unknown>) => ({
    update_id: randomInt(1, 1e9),
    message: {
      message_id: 7,
      date: Math.floor(Date.now() / 1000),
      chat: { id: userId, type: "private" },
      from: { id: userId, is_bot: false, first_name: "Nul" },
      ...extra,
    },
  });

  it("ignores a successful_payment whose charge id holds a NUL: 200, a warning, nothing stored", async () => {
    const { db } = await testDatabase();
    const inbox = async () => Number((await db("payment_provider_events").count({ n: "*" }))[0]!.n);
    const before = await inbox();
    const userId = randomInt(10_000_000, 99_999_999);
    const paid = {
      currency: "XTR",
      total_amount: 1,
      invoice_payload: "00000000-0000-4000-8000-000000000000",
      telegram_payment_charge_id: "stxch\u0000arge",
    };
    await readWithAWarning(await post(message(userId, { successful_payment: paid })), /holds text that cannot be stored/);
    await readWithAWarning(await post(message(userId, { refunded_payment: paid })), /holds text that cannot be stored/);
    assert.equal(await inbox(), before);
  });

  it("answers 200 to a Stars payment whose invoice payload is no checkout id (an invoice the bot's owner made), storing no subscription", async () => {
    const { db } = await testDatabase();
    const userId = randomInt(10_000_000, 99_999_999);
    for (const payload of ["not-a-checkout", "", "x".repeat(128), "00000000-0000-4000-8000-00000000000Z"]) {
      const paid = { currency: "XTR", total_amount: 1, invoice_payload: payload, telegram_payment_charge_id: `ch${randomInt(1, 1e9)}` };
      const res = await post(message(userId, { successful_payment: paid }));
      assert.equal(res.status, 200, `${JSON.stringify(payload)}: ${await res.text()}`);
    }
    assert.equal((await db("subscriptions").where({ provider: "telegram_stars" }).whereLike("provider_subscription_id", `${userId}:%`)).length, 0);
    assert.deepEqual(
      lines.filter((l) => Number(l.level) >= 50),
      [],
    );
  });

  it("ignores any other update holding a NUL (a support message, a member's name)", async () => {
    const userId = randomInt(10_000_000, 99_999_999);
    await readWithAWarning(await post(message(userId, { text: "hello\u0000there" })), /holds text that cannot be stored/);
    const named = message(userId, { text: "/start" });
    named.message.from.first_name = "A\u0000da";
    await readWithAWarning(await post(named), /holds text that cannot be stored/);
  });

  it("answers 200 when Telegram refuses the pre-checkout answer (a query too old or unknown); nothing is charged", async () => {
    const query = {
      id: `unknown-${randomInt(1, 1e9)}`,
      from: { id: 4242, is_bot: false, first_name: "Late" },
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "co-gone",
    };
    await readWithAWarning(await post({ update_id: randomInt(1, 1e9), pre_checkout_query: query }), /pre-checkout answer not taken by Telegram/);
  });
});
