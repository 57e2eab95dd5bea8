// Issue 46 item 4 in the Telegram bot: a `language` of "de" changes the /start answer; a member's
// Telegram language_code wins when the package ships it (else the installation's language); the
// creator's welcome message is sent as written; a terms_url is shown and accepted (recorded) before
// a Stars invoice is made; accept_stars off sells on the portal and declines an earlier invoice.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { updatesSecret } from "../../src/modules/connectors/bot/session.ts";
import { testDatabase } from "../helpers/backends.ts";
import { testPlatform } from "../helpers/platforms.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { addStarsMethod } from "../modules/payments/methods.ts";
import { activityOf, seedPlan } from "../modules/subscriptions/commerce.ts";
import { projectWithPlan, type PortalProjectFixture } from "../portal/support.ts";

const TERMS = "https://example.com/terms";

describe("connector bot: languages, terms and the Stars toggle", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let fixture: PortalProjectFixture;
  let starsPlanId: string;
  let portal: string;

  before(async () => {
    fixture = await projectWithPlan(suite);
    const { db } = await testDatabase();
    await addStarsMethod(suite.creator, fixture.projectId);
    starsPlanId = (await seedPlan(suite.creator)).planId;
    await db("plans").where({ id: starsPlanId }).update({ currency: "XTR", amount_minor: 250, name: "Stars monthly" });
    portal = /: (\S+)$/.exec(await say(newUser(), "/start"))![1]!;
  });

  const newUser = () => randomInt(10_000_000, 99_999_999);

  async function settle(settings: Record<string, unknown>): Promise<void> {
    const { db } = await testDatabase();
    await db("connector_installations")
      .where({ id: fixture.installation.id })
      .update({ settings: JSON.stringify(settings) });
  }

  /** Telegram delivering `text` from `userId` (with the Bot API's optional language_code); answers what the bot sent. */
  async function say(userId: number, text: string, languageCode?: string): Promise<string> {
    const mark = (await testPlatform()).calls.length;
    const from = { id: userId, is_bot: false, first_name: "Ada", ...(languageCode ? { language_code: languageCode } : {}) };
    const res = await fetch(`${suite.api.url}/connectors/telegram/${fixture.installation.id}/updates`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, fixture.installation.id) },
      body: JSON.stringify({
        update_id: randomInt(1, 1e9),
        message: { message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: userId, type: "private" }, from, text },
      }),
    });
    assert.equal(res.status, 200);
    const calls = (await testPlatform()).calls.slice(mark).filter((c) => c.bot === String(fixture.bot.id) && c.name === "sendMessage");
    return calls.map((c) => String(c.params.text)).join("\n");
  }

  /** The invoices the bot made since `mark`. */
  const invoicesSince = async (mark: number) =>
    (await testPlatform()).calls.slice(mark).filter((c) => c.bot === String(fixture.bot.id) && /^(createInvoiceLink|sendInvoice)$/.test(c.name));

  it('answers /start in German with a "de" installation, in English with "en" [claim telegram.settings.language]', async () => {
    await settle({ language: "en" });
    assert.equal(await say(newUser(), "/start"), `Welcome!\nPlans and your memberships: ${portal}`);
    await settle({ language: "de" });
    assert.equal(await say(newUser(), "/start"), `Willkommen!\nPläne und deine Mitgliedschaften: ${portal}`);
    assert.equal(await say(newUser(), "/cancel"), "Du hast hier kein Abonnement, das du kündigen kannst.");
  });

  it("answers in the member's Telegram language when shipped, else in the installation's", async () => {
    await settle({ language: "de" });
    assert.equal(await say(newUser(), "/start", "fr"), `Bienvenue !\nOffres et vos abonnements : ${portal}`);
    assert.equal(await say(newUser(), "/start", "pt-br"), `Boas-vindas!\nPlanos e suas assinaturas: ${portal}`);
    assert.equal(await say(newUser(), "/start", "en"), `Welcome!\nPlans and your memberships: ${portal}`);
    assert.equal(await say(newUser(), "/start", "ja"), `Willkommen!\nPläne und deine Mitgliedschaften: ${portal}`);
    const plan = await say(newUser(), `/start ${fixture.plan.planId}`, "es");
    assert.match(plan, /^Night Owl monthly: .* cada mes\.\nPaga en \S+\?plan=/);
  });

  it("sends the creator's welcome message as written, the rest in the bot's language", async () => {
    await settle({ language: "de", welcome_message: "Hello night owls!" });
    assert.equal(await say(newUser(), "/start", "es"), `Hello night owls!\nPlanes y tus membresías: ${portal}`);
  });

  it("shows the terms and makes the Stars invoice only once they are accepted, recording who, when and which [claim telegram.settings.terms_url]", async () => {
    await settle({ language: "en", terms_url: TERMS });
    const { db } = await testDatabase();
    const userId = newUser();
    let mark = (await testPlatform()).calls.length;
    const offer = await say(userId, `/start ${starsPlanId}`);
    assert.match(offer, /^Stars monthly: 250 stars \(renews every 30 days until you cancel\)\.\n/);
    assert.ok(offer.includes(`Before you pay, read the terms of service: ${TERMS}`), offer);
    const payload = /To accept them and get the invoice, open \S+\?start=(\S+)$/.exec(offer)?.[1];
    assert.equal(payload, `-accept_-${starsPlanId}`);
    assert.deepEqual(await invoicesSince(mark), [], "no invoice before the terms are accepted");
    assert.deepEqual(await db("connector_terms_acceptances").where({ installation_id: fixture.installation.id }), []);

    mark = (await testPlatform()).calls.length;
    const accepted = await say(userId, `/start ${payload}`);
    assert.match(accepted, /^Stars monthly: 250 stars \(renews every 30 days until you cancel\)\.\nPay with Telegram Stars: \S+$/);
    assert.equal((await invoicesSince(mark)).length, 1);
    const member = await db("members")
      .where({ project_id: fixture.projectId, external_user_id: String(userId) })
      .first();
    const rows = await db("connector_terms_acceptances").where({ installation_id: fixture.installation.id, member_id: member.id });
    assert.deepEqual(
      rows.map((r) => [r.terms_url, r.project_id, r.team_id]),
      [[TERMS, fixture.projectId, suite.creator.teamId]],
    );
    assert.ok(rows[0].accepted_at instanceof Date || typeof rows[0].accepted_at === "string");
    const entry = (await activityOf(suite.creator.teamId, member.id)).find((e) => e.event === "terms_accepted") as
      Record<string, unknown> | undefined;
    assert.ok(entry, "the acceptance is in the activity log");

    mark = (await testPlatform()).calls.length;
    assert.match(await say(userId, `/start ${starsPlanId}`), /Pay with Telegram Stars: \S+$/, "accepted once, the plan link pays at once");
    assert.equal((await invoicesSince(mark)).length, 1);

    await settle({ language: "de", terms_url: `${TERMS}/v2` });
    mark = (await testPlatform()).calls.length;
    const again = await say(userId, `/start ${starsPlanId}`);
    assert.ok(again.includes(`Bitte lies vor dem Bezahlen die Nutzungsbedingungen: ${TERMS}/v2`), again);
    assert.ok(again.includes("Um sie zu akzeptieren und die Rechnung zu erhalten, öffne"), again);
    assert.deepEqual(await invoicesSince(mark), [], "new terms are accepted anew");
  });

  it("shows the terms beside a portal plan link", async () => {
    await settle({ language: "en", terms_url: TERMS });
    const text = await say(newUser(), `/start ${fixture.plan.planId}`);
    assert.match(text, new RegExp(`\\nCheck out on \\S+\\?plan=${fixture.plan.planId}\\nTerms: ${TERMS}$`));
  });

  it("with accept_stars off offers the portal instead of an invoice, and declines an invoice made before [claim telegram.settings.accept_stars]", async () => {
    await settle({ language: "en", accept_stars: true });
    const userId = newUser();
    const link = /Pay with Telegram Stars: (\S+)/.exec(await say(userId, `/start ${starsPlanId}`))?.[1];
    assert.ok(link);

    await settle({ language: "en", accept_stars: false });
    const mark = (await testPlatform()).calls.length;
    const text = await say(newUser(), `/start ${starsPlanId}`);
    assert.equal(text, `Stars monthly: 250 stars every month.\nCheck out on ${portal}?plan=${starsPlanId}`);
    assert.deepEqual(await invoicesSince(mark), []);

    const paid = await (await testPlatform()).payInvoice({ invoice: link, user: { id: userId, first_name: "Ada", language_code: "fr" } });
    assert.deepEqual(paid, { status: "declined", error_message: "Ce bot n’accepte plus les Telegram Stars. Rien n’a été débité." });
  });
});
