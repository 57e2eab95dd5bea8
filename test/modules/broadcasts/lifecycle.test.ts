// A broadcast's life besides sending now: the test send to the creator's own linked account (refused
// with broadcast_test_no_identity when they have none), a scheduled one started by the
// broadcasts.start job and not before, cancel while scheduled only, a member's /stop and /resume
// in the bot honoured, and another team's token answered 404.
import assert from "node:assert/strict";
import { scheduledJobs } from "../../../src/modules/broadcasts/jobs.ts";
import { RESUME_TEXT, STOP_TEXT } from "../../../src/modules/broadcasts/opt-out.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { testPlatform } from "../../helpers/platforms.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, newProject, postTelegramMessage } from "../connectors/support.ts";
import { expectCredentialRefusals, runJob } from "../subscriptions/commerce.ts";
import { linkIdentity, recipientStatuses, seedMembers, sendBotMessages } from "./support.ts";

describe("broadcasts: test send, schedule, cancel, opt-out, tenancy", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator();
  const path = (project: string) => `/v1/projects/${project}/broadcasts`;

  async function telegramProject() {
    const project = await newProject(suite.creator, "Broadcast project");
    const { installation, bot } = await installTelegram(suite.client, project);
    return { project, installation: installation.id as string, bot };
  }

  it("sends a test only to the creator's own linked account, and refuses one without it", async () => {
    const { project, installation, bot } = await telegramProject();
    const members = await seedMembers(suite.creator, project, 2);
    const none = expectError(await suite.client.post(path(project), { text: "Test", test: true }), 422, "VALIDATION_FAILED");
    assert.equal(none.context?.reason, "broadcast_test_no_identity");

    const own = String(900_000_000 + Math.floor(Math.random() * 1e8));
    await linkIdentity(suite.creator, "telegram", own);
    const res = await suite.client.post(path(project), { text: "Test", test: true, send_at: new Date(Date.now() + 3600_000).toISOString() });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.test, true);
    assert.deepEqual(res.body.data.totals, { recipients: 1, queued: 1, sent: 0, blocked: 0, failed: 0, opted_out: 0 });
    const mark = (await testPlatform()).calls.length;
    await sendBotMessages([installation]);
    const sends = (await testPlatform()).calls.slice(mark).filter((c) => c.name === "sendMessage" && c.bot === bot.token.split(":")[0]);
    assert.deepEqual(
      sends.map((c) => String(c.params.chat_id)),
      [own],
    );
    const recipients = (await suite.client.get(`${path(project)}/${res.body.data.id}/recipients`)).body.data;
    assert.deepEqual(
      recipients.map((r: { member_id: string | null; status: string }) => [r.member_id, r.status]),
      [[null, "sent"]],
    );
    assert.ok(members.every((m) => !sends.some((c) => String(c.params.chat_id) === m.externalUserId)));
  });

  it("starts a scheduled broadcast when its time comes, snapshotting the members of that moment", async () => {
    const { project } = await telegramProject();
    await seedMembers(suite.creator, project, 2);
    const sendAt = new Date(Date.now() + 2 * 3600_000);
    const res = await suite.client.post(path(project), { text: "Later", send_at: sendAt.toISOString() });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "scheduled");
    assert.equal(res.body.data.totals.recipients, 0);
    await runJob(scheduledJobs, "broadcasts.start", new Date(sendAt.getTime() - 60_000));
    assert.equal((await recipientStatuses(res.body.data.id)).size, 0, "not before send_at");
    await seedMembers(suite.creator, project, 1);
    await runJob(scheduledJobs, "broadcasts.start", sendAt);
    const started = (await suite.client.get(`${path(project)}/${res.body.data.id}`)).body.data;
    assert.equal(started.status, "sending");
    assert.equal(started.totals.recipients, 3);
    assert.equal(await runJob(scheduledJobs, "broadcasts.start", sendAt), 0, "a second run starts nothing");
    const late = expectError(await suite.client.post(`${path(project)}/${started.id}/cancel`), 422, "VALIDATION_FAILED");
    assert.deepEqual(late.context, { reason: "broadcast_not_scheduled", status: "sending" });
  });

  it("cancels a scheduled broadcast, which then never starts", async () => {
    const { project } = await telegramProject();
    await seedMembers(suite.creator, project, 1);
    const sendAt = new Date(Date.now() + 3600_000);
    const id = (await suite.client.post(path(project), { text: "Maybe", send_at: sendAt.toISOString() })).body.data.id;
    const canceled = await suite.client.post(`${path(project)}/${id}/cancel`);
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.equal(canceled.body.data.status, "canceled");
    const again = expectError(await suite.client.post(`${path(project)}/${id}/cancel`), 422, "VALIDATION_FAILED");
    assert.equal(again.context?.reason, "broadcast_not_scheduled");
    await runJob(scheduledJobs, "broadcasts.start", new Date(sendAt.getTime() + 60_000));
    assert.equal((await recipientStatuses(id)).size, 0);
    const { db } = await testDatabase();
    assert.deepEqual(await db("events").where({ project_id: project }).where("type", "like", "broadcast.%").orderBy("id").pluck("type"), [
      "broadcast.created",
      "broadcast.canceled",
    ]);
  });

  it("honours a member's /stop (counted, not sent) until /resume; /start does not opt back in", async () => {
    const { project, installation, bot } = await telegramProject();
    const [member] = await seedMembers(suite.creator, project, 1);
    const user = Number(member!.externalUserId);
    const replies = async (text: string) => {
      const mark = (await testPlatform()).calls.length;
      assert.equal((await postTelegramMessage(suite.api.url, installation, user, text)).status, 200);
      return (await testPlatform()).calls
        .slice(mark)
        .filter((c) => c.name === "sendMessage" && c.bot === bot.token.split(":")[0])
        .map((c) => c.params.text);
    };
    const optedOut = async () => {
      const { db } = await testDatabase();
      return (await db("members").where({ id: member!.id }).first("broadcasts_opted_out_at")).broadcasts_opted_out_at !== null;
    };
    assert.deepEqual(await replies("/stop"), [STOP_TEXT]);
    assert.equal(await optedOut(), true);
    const stopped = (await suite.client.post(path(project), { text: "While stopped" })).body.data;
    assert.deepEqual([stopped.totals.opted_out, stopped.totals.queued], [1, 0]);
    await replies("/start");
    assert.equal(await optedOut(), true, "/start keeps the opt-out");
    assert.deepEqual(await replies("/resume"), [RESUME_TEXT]);
    assert.equal(await optedOut(), false);
    const resumed = (await suite.client.post(path(project), { text: "Back" })).body.data;
    assert.deepEqual([resumed.totals.opted_out, resumed.totals.queued], [0, 1]);
  });

  it("answers another team's token 404 and a token without broadcast:send 403", async () => {
    const { project } = await telegramProject();
    const id = (await suite.client.post(path(project), { text: "Ours", send_at: new Date(Date.now() + 3600_000).toISOString() })).body.data.id;
    const stranger = new ApiClient(suite.api.url, (await createTestCreator()).token);
    for (const res of [
      await stranger.get(`${path(project)}/${id}`),
      await stranger.get(`${path(project)}/${id}/recipients`),
      await stranger.post(`${path(project)}/${id}/cancel`),
      await stranger.post(path(project), { text: "Theirs" }),
    ])
      assert.equal(res.status, 404, JSON.stringify(res.body));
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: path(project), ability: "broadcast:send" });
    assert.equal((await suite.client.get(`${path(project)}/${id}`)).body.data.status, "scheduled");
  });
});
