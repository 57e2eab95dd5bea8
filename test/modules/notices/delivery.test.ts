// A member notice reaches the member: the access-ended notice of an expired subscription is sent by
// the bot message worker (sendDueBotMessages) through the project's Telegram bot to the member's
// chat on the fake Telegram, once, in the language of the installation (its `language` setting) at
// the moment it is sent, while the queued row keeps the English text as the record.
import assert from "node:assert/strict";
import { scheduledJobs as subscriptionJobs } from "../../../src/modules/subscriptions/jobs.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installationRow, installPath, installTelegram } from "../connectors/support.ts";
import { DAY, runJob, subscribedMember } from "../subscriptions/commerce.ts";
import { noticesOf } from "./notices.ts";

describe("notices: delivery through the bot", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { projects: 2 } });

  it("sends the access-ended notice to the member's Telegram chat through the project's bot, once", async () => {
    const project = suite.creator.projectIds[0]!;
    const { bot } = await installTelegram(suite.client, project);
    const installation = await installationRow(project);
    // The plan is seeded on the project's installation: the one just made with the bot's token.
    const sub = await subscribedMember(suite.creator, { cycle: "day" });
    const at = new Date(Date.now() + 2 * DAY);
    await runJob(subscriptionJobs, "subscriptions.expire", at);
    const [notice] = await noticesOf(sub.subscription.id);
    assert.ok(notice, "the access-ended notice is queued");

    const { db } = await testDatabase();
    const kv = await testKv();
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    const send = () => sendDueBotMessages({ db, kv, env, logger: testLogger, now: at, installations: [installation.id] });
    const mark = (await testPlatform()).calls.length;
    await send();
    await send();
    const sent = (await testPlatform()).calls.slice(mark).filter((c) => c.name === "sendMessage" && c.bot === bot.token.split(":")[0]);
    assert.deepEqual(
      sent.map((c) => [c.params.chat_id, c.params.text]),
      [[sub.member.external_user_id, notice!.text]],
    );
    assert.equal((await noticesOf(sub.subscription.id))[0]!.status, "sent");
  });

  it("[claim telegram.settings.language] is sent in the installation's language, set after the notice was queued", async () => {
    const project = suite.creator.projectIds[1]!;
    const { bot } = await installTelegram(suite.client, project);
    const installation = await installationRow(project);
    const sub = await subscribedMember(suite.creator, { cycle: "day", projectIndex: 1 });
    const at = new Date(Date.now() + 2 * DAY);
    await runJob(subscriptionJobs, "subscriptions.expire", at);
    const [notice] = await noticesOf(sub.subscription.id);
    assert.match(notice!.text, /^Your access to .+ has ended\. To come back, choose a plan on /, "the record is English");
    const changed = await suite.client.request("PATCH", installPath(project, "telegram"), { body: { settings: { language: "de" } } });
    assert.equal(changed.status, 200);

    const { db } = await testDatabase();
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    const mark = (await testPlatform()).calls.length;
    await sendDueBotMessages({ db, kv: await testKv(), env, logger: testLogger, now: at, installations: [installation.id] });
    const sent = (await testPlatform()).calls.slice(mark).filter((c) => c.name === "sendMessage" && c.bot === bot.token.split(":")[0]);
    assert.equal(sent.length, 1);
    assert.match(String(sent[0]!.params.text), /^Dein Zugang zu .+ ist beendet\. Um zurückzukommen, wähle einen Plan auf http/);
  });
});
