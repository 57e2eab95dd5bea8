// Broadcasts over REST: the segment a broadcast reaches (plans, subscription statuses, join dates;
// banned members never, opted-out ones counted and not sent), each recipient's status after the bot
// message worker sent through the fake Telegram (sent, blocked when the person blocked the bot), and
// the messaging limits of the connector refused at create time naming the field.
import assert from "node:assert/strict";
import { expectError } from "../../helpers/http.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { testPlatform } from "../../helpers/platforms.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, newProject } from "../connectors/support.ts";
import { recipientStatuses, seedMembers, seedPlanIn, sendBotMessages } from "./support.ts";

describe("broadcasts: segments, statuses and limits", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator();
  const path = (project: string) => `/v1/projects/${project}/broadcasts`;

  async function telegramProject() {
    const project = await newProject(suite.creator, "Broadcast project");
    const { installation, bot } = await installTelegram(suite.client, project);
    return { project, installation: installation.id as string, bot };
  }

  it("sends to the segment's members now and reports each recipient's status, blocked included [claim telegram.capabilities.broadcasts]", async () => {
    const { project, installation, bot } = await telegramProject();
    const plan = await seedPlanIn(suite.creator, project);
    const other = await seedPlanIn(suite.creator, project);
    const reached = await seedMembers(suite.creator, project, 3, { subscription: { planId: plan, status: "active" } });
    const [blocker] = await seedMembers(suite.creator, project, 1, { subscription: { planId: plan, status: "active" } });
    const [optedOut] = await seedMembers(suite.creator, project, 1, { optedOut: true, subscription: { planId: plan, status: "active" } });
    const outside = [
      ...(await seedMembers(suite.creator, project, 1, { subscription: { planId: plan, status: "canceled" } })),
      ...(await seedMembers(suite.creator, project, 1, { subscription: { planId: other, status: "active" } })),
      ...(await seedMembers(suite.creator, project, 1, { status: "banned", subscription: { planId: plan, status: "active" } })),
      ...(await seedMembers(suite.creator, project, 1)),
    ];
    (await testPlatform()).setTelegramBotStatus(bot.id, blocker!.externalUserId, "kicked");

    const body = {
      text: "The December workshop opens on Monday.",
      buttons: [[{ label: "Your membership", target: "portal" }]],
      segment: { plan_ids: [plan], subscription_statuses: ["active"] },
    };
    const res = await suite.client.post(path(project), body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const created = res.body.data;
    assert.equal(created.status, "sending");
    assert.deepEqual(created.segment.connectors, ["telegram"]);
    assert.deepEqual(created.totals, { recipients: 5, queued: 4, sent: 0, blocked: 0, failed: 0, opted_out: 1 });

    const mark = (await testPlatform()).calls.length;
    await sendBotMessages([installation]);
    const sends = (await testPlatform()).calls.slice(mark).filter((c) => c.name === "sendMessage" && c.bot === bot.token.split(":")[0]);
    const expected = [...reached, blocker!].map((m) => m.externalUserId).sort();
    assert.deepEqual(sends.map((c) => String(c.params.chat_id)).sort(), expected);
    const text = String(sends[0]!.params.text);
    assert.ok(text.startsWith(body.text), text);
    assert.match(text, /\n\nYour membership: https?:\/\/\S+\/account$/);

    const after = (await suite.client.get(`${path(project)}/${created.id}`)).body.data;
    assert.equal(after.status, "sent");
    assert.deepEqual(after.totals, { recipients: 5, queued: 0, sent: 3, blocked: 1, failed: 0, opted_out: 1 });
    const statuses = await recipientStatuses(created.id);
    for (const m of reached) assert.equal(statuses.get(m.externalUserId), "sent");
    assert.equal(statuses.get(blocker!.externalUserId), "blocked");
    assert.equal(statuses.get(optedOut!.externalUserId), "opted_out");
    for (const m of outside) assert.equal(statuses.has(m.externalUserId), false);

    const blocked = await suite.client.get(`${path(project)}/${created.id}/recipients?status=blocked`);
    assert.equal(blocked.status, 200);
    assert.deepEqual(
      blocked.body.data.map((r: { platform_user_id: string; member_id: string; error: string }) => [r.platform_user_id, r.member_id]),
      [[blocker!.externalUserId, blocker!.id]],
    );
    assert.match(blocked.body.data[0].error, /blocked by the user/);

    const { db } = await testDatabase();
    const events = await db("events").where({ project_id: project }).where("type", "like", "broadcast.%").orderBy("id").pluck("type");
    assert.deepEqual(events, ["broadcast.created", "broadcast.started"]);
    const entries = await db("activity_log").where({ subject_id: created.id }).orderBy("created_at").pluck("event");
    assert.deepEqual(entries, ["broadcast_created", "broadcast_started"]);
  });

  it("narrows by join date: joined_after inclusive, joined_before exclusive", async () => {
    const { project } = await telegramProject();
    const day = (d: number) => new Date(Date.UTC(2026, 10, d));
    const [early] = await seedMembers(suite.creator, project, 1, { joinedAt: day(1) });
    const [middle] = await seedMembers(suite.creator, project, 1, { joinedAt: day(10) });
    const [late] = await seedMembers(suite.creator, project, 1, { joinedAt: day(20) });
    const res = await suite.client.post(path(project), {
      text: "Hello",
      segment: { joined_after: day(10).toISOString(), joined_before: day(20).toISOString() },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const statuses = await recipientStatuses(res.body.data.id);
    assert.deepEqual([...statuses.keys()], [middle!.externalUserId]);
    assert.ok(!statuses.has(early!.externalUserId) && !statuses.has(late!.externalUserId));
  });

  it("refuses what the connector's messaging limits do not allow, naming the field, and sends nothing", async () => {
    const { project } = await telegramProject();
    await seedMembers(suite.creator, project, 1);
    const refuse = async (body: Record<string, unknown>, field: string) => {
      const error = expectError(await suite.client.post(path(project), body), 422, "VALIDATION_FAILED");
      assert.ok(error.fields?.[field], `${field} in ${JSON.stringify(error.fields)}`);
    };
    const button = { label: "Join", target: "portal" };
    // Telegram's max_length is 4096: the text fits alone, not with its button line.
    await refuse({ text: "x".repeat(4090), buttons: [[button]] }, "text");
    await refuse({ text: "Rows", buttons: [Array(9).fill(button)] }, "buttons.0");
    await refuse({ text: "Many", buttons: Array(13).fill(Array(8).fill(button)) }, "buttons");
    await refuse({ text: "Plan", buttons: [[{ label: "Gold", target: "plan:00000000-0000-4000-8000-000000000000" }]] }, "buttons.0.0.target");
    await refuse({ text: "Discord", segment: { connectors: ["discord"] } }, "segment.connectors");
    await refuse({ text: "Image", image_url: "http://example.com/a.png" }, "image_url");
    const { db } = await testDatabase();
    assert.equal(Number((await db("broadcasts").where({ project_id: project }).count({ n: "*" }).first())!.n), 0);
  });

  it("refuses a project without an installation of a connector that offers broadcasts", async () => {
    const project = await newProject(suite.creator, "No bot");
    const error = expectError(await suite.client.post(path(project), { text: "Hi" }), 422, "VALIDATION_FAILED");
    assert.ok(error.fields?.["segment.connectors"]);
  });
});
