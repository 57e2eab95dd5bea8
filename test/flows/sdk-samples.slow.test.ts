// Issue 35's check "the reference site's samples run against `npm start`": every SDK sample of the
// reference (generated/sdk-samples.json, as /reference shows them) runs against a spawned
// npm start on a temp DATA_DIR with the demo token, in an order that makes each one's records
// first: the chain's own project, plan and perk; a member who redeems an access code and writes to
// the bot on the simulated Telegram; an invitee who opens an account from the invitation mail in
// Chromium; the demo creator's Telegram account linked through the simulated platform. Each sample
// runs as written (test/helpers/sdk-sample-runner.ts) but for its ids, which are the chain's.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { freshPage, launchBrowser, screenshot, signIn } from "../helpers/browser.ts";
import {
  installSimTelegram,
  joinFromInvitationMail,
  linkTelegramOnSim,
  startWithMailReceiver,
  type SimUser,
  type StartWithMail,
} from "../helpers/messaging.ts";
import { exampleId, sampleRunner, samples, type SampleRunner } from "../helpers/sdk-sample-runner.ts";

/** Polls `read` until it answers something, for what npm start's workers do after an answer (a creator task). */
async function eventually<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("issue 35: the reference's SDK samples run against npm start", function () {
  this.timeout(300_000);
  let running: StartWithMail;
  let folder: string;
  let browser: Browser;
  let chain: SampleRunner;
  let receiver: Server;
  /** The webhook-id of each delivery the receiver got. */
  const deliveries: string[] = [];
  const ran = new Set<string>();
  /** Runs a sample and notes that it ran. */
  const run: SampleRunner["run"] = async (operationId, options) => {
    const result = await chain.run(operationId, options);
    ran.add(operationId);
    return result;
  };
  /**
   * Runs a sample the API refuses with `code` (nothing in the chain can make the record it names),
   * and notes that it ran: the call, its arguments and the SDK's error are still the reader's.
   */
  const runRefused = async (operationId: string, code: string) => {
    await assert.rejects(chain.run(operationId), (error: Error) => error.message.includes(`"${code}"`));
    ran.add(operationId);
  };
  /** The chain's records: the project, its plan, the member and the like, by name. */
  const the: Record<string, any> = {};

  before(async () => {
    // The webhook samples' endpoint is a receiver of the test's own on a loopback address, over plain HTTP.
    receiver = createServer((req, res) => {
      req.resume().on("end", () => {
        deliveries.push(String(req.headers["webhook-id"]));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const webhookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    const env = { WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8", WEBHOOK_ALLOW_HTTP: "on" };
    [running, browser] = await Promise.all([startWithMailReceiver("sdk-samples", env), launchBrowser()]);
    folder = mkdtempSync(join(tmpdir(), "subbridge-samples-"));
    process.env.SUBBRIDGE_TOKEN = running.demo.token;
    const apiUrl = /REST API\s+(http:\/\/\S+)/.exec(running.started.output())?.[1];
    assert.ok(apiUrl, `the banner names the REST API:\n${running.started.output()}`);
    chain = sampleRunner(apiUrl, webhookBase, folder);
    chain.stand(exampleId("get_team", "teamId"), running.demo.teamId);
    const me = (await running.api("GET", "/teams/current")).data as { owner_user_id: string };
    chain.stand("8c8f1f7e-4a07-4b0a-b3c5-6e3f5d9e2f11", me.owner_user_id);
  });

  after(async () => {
    delete process.env.SUBBRIDGE_TOKEN;
    await browser?.close();
    await running?.stop();
    receiver?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("[embedded] a project with Telegram, a perk and a plan sold for access codes: create, list, retrieve, update and publish", async () => {
    the.project = (await run("create_project")).kept;
    assert.equal(the.project.name, "Night Owls");
    the.installation = (await run("install_connector")).kept;
    assert.equal(the.installation.connector, "telegram");
    assert.equal(the.installation.project_id, the.project.id);
    the.resource = (await run("create_resource")).kept;
    assert.equal(the.resource.project_id, the.project.id);
    the.plan = (await run("create_plan")).kept;
    assert.deepEqual(the.plan.resources, [the.resource.id]);
    assert.equal(the.plan.status, "draft");

    // A new project's one payment method, access codes, sells nothing until it has currencies and
    // billing cycles and is enabled: the sample sets all three.
    const methods = await run("list_payment_methods");
    const accessCodes = methods.printed.find((line) => line.endsWith(" Access codes"))?.split(" ")[0];
    assert.ok(accessCodes, methods.printed.join("\n"));
    chain.stand(exampleId("update_payment_method", "paymentMethodId"), accessCodes);
    assert.equal((await run("update_payment_method")).kept.enabled, true);
    assert.equal((await run("get_payment_method")).kept.id, accessCodes);

    assert.deepEqual((await run("list_plans")).printed, [`${the.plan.id} ${the.plan.name}`]);
    assert.equal((await run("get_plan")).kept.id, the.plan.id);
    assert.deepEqual((await run("update_plan")).kept.price, { amount: 1299, currency: "EUR" });
    assert.equal((await run("publish_plan")).kept.status, "published");
    for (const id of [
      "list_projects",
      "get_project",
      "update_project",
      "list_connectors",
      "list_project_connectors",
      "get_project_connector",
      "list_connector_chats",
    ])
      await run(id);
    await run("update_project_connector");
    // Only a Discord drift sweep holds removals: the Telegram installation has none, so the list is
    // empty and the example's hold is not found.
    assert.deepEqual((await run("list_removal_holds")).printed, []);
    for (const id of ["confirm_removal_hold", "cancel_removal_hold"]) await runRefused(id, "RESOURCE_NOT_FOUND");
    for (const id of ["list_resources", "get_resource", "update_resource", "get_deep_link", "get_portal_url", "get_project_analytics"]) await run(id);
  });

  it("[embedded] coupons, pass windows, canned replies, roles, tokens, webhook endpoints: each made, read, changed and listed", async () => {
    for (const kind of ["coupon", "pass_window"])
      for (const verb of ["create", "get", "update", "list"]) await run(`${verb}_${kind}${verb === "list" ? "s" : ""}`);
    for (const id of ["create_canned_reply", "list_canned_replies", "update_canned_reply"]) await run(id);
    for (const id of ["create_role", "get_role", "update_role", "list_roles"]) await run(id);

    const { kept: token, printed } = await run("create_token");
    assert.match(printed[0]!, new RegExp(`^${token.id} Reporting script sbt_`));
    assert.equal((await run("get_token")).kept.id, token.id);
    assert.ok((await run("list_tokens")).printed.length >= 2, "the demo token and the sample's");

    the.endpoint = (await run("create_webhook_endpoint")).kept;
    for (const id of ["get_webhook_endpoint", "update_webhook_endpoint", "list_webhook_endpoints", "test_webhook_endpoint"]) await run(id);
    assert.ok(deliveries.length >= 1, "the test event reached the receiver");
    for (const id of ["rotate_webhook_endpoint_secret", "list_webhook_events"]) await run(id);
  });

  it("[embedded] a member: redeems a generated access code on the bot, gets a creator task for the perk, writes to support; canceled, banned, unbanned", async () => {
    const { codes } = (await run("bulk_generate_access_codes")).kept;
    assert.equal(codes.length, 1);
    assert.deepEqual((await run("list_access_codes")).printed, [`${codes[0].id} unredeemed`]);

    // Lin presses Start on the code's link on the simulated Telegram: the bot redeems it.
    const lin: SimUser = { id: 123456789, firstName: "Lin" };
    await simSend(lin, `/start ${codes[0].code}`);
    const [member] = (await running.api("GET", `/projects/${the.project.id}/members`)).data as { id: string }[];
    assert.ok(member, "Lin is a member");
    chain.stand(exampleId("get_member", "memberId"), member.id);
    assert.equal((await run("get_member")).kept.id, member.id);
    await run("sync_member_access");
    await run("list_subscribers");
    await run("export_members");
    const [subscription] = (await running.api("GET", `/subscriptions?plan_id=${the.plan.id}`)).data as { id: string }[];
    assert.ok(subscription, "Lin's subscription");
    chain.stand(exampleId("get_subscription", "subscriptionId"), subscription.id);
    assert.equal((await run("get_subscription")).kept.status, "active");
    assert.equal((await run("extend_subscription")).kept.id, subscription.id);
    await run("list_subscriptions");
    await run("list_transactions");
    await run("export_transactions");
    // The endpoint subscribes to subscription.created: Lin's subscription was delivered.
    await eventually(async () => ((await run("list_webhook_deliveries")).printed.length ? true : undefined), "the subscription.created delivery");
    await run("retry_dead_webhook_deliveries");
    const [delivery] = (await running.api("GET", `/webhook-endpoints/${the.endpoint.id}/deliveries`)).data as { id: string; status: string }[];
    assert.ok(delivery, "a delivery to replay");
    chain.stand(exampleId("replay_webhook_delivery", "webhookDeliveryId"), delivery.id);
    await eventually(
      async () =>
        ((await running.api("GET", `/webhook-endpoints/${the.endpoint.id}/deliveries`)).data as { id: string; status: string }[]).find(
          (d) => d.id === delivery.id && d.status !== "pending" && d.status !== "queued",
        ),
      "the delivery's outcome",
    );
    await run("replay_webhook_delivery");

    // The perk is the creator's to hand over: a task, completed.
    const task = await eventually(
      async () => ((await running.api("GET", `/projects/${the.project.id}/creator-tasks`)).data as { id: string }[])[0],
      "the perk's creator task",
    );
    chain.stand(exampleId("complete_creator_task", "creatorTaskId"), task.id);
    await run("list_creator_tasks");
    assert.equal((await run("complete_creator_task")).kept.status, "completed");

    // Lin writes to the bot: a support conversation the creator answers and assigns.
    await simSend(lin, "Hello, where is my invite?");
    const conversation = await eventually(
      async () => ((await running.api("GET", `/projects/${the.project.id}/support/conversations`)).data as { id: string }[])[0],
      "Lin's support conversation",
    );
    chain.stand(exampleId("get_support_conversation", "conversationId"), conversation.id);
    for (const id of ["list_support_conversations", "get_support_conversation", "reply_to_support_conversation", "list_support_messages"])
      await run(id);
    assert.equal((await run("update_support_conversation")).kept.id, conversation.id);

    // Canceled first: a ban ends the member's subscriptions itself.
    const { kept: canceled } = await run("cancel_subscription");
    assert.deepEqual([canceled.id, canceled.status], [subscription.id, "canceled"]);
    assert.ok((await run("ban_member")).kept.banned_at);
    assert.equal((await run("unban_member")).kept.banned_at, null);
  });

  it("[embedded] the team: a second team made and removed; Grace invited, joins from the mail, is changed and removed; an invitation withdrawn", async () => {
    // A token acts on its own team: the new team's samples run with a token minted there, on the tokens page.
    const { kept: team } = await run("create_team", { remember: false });
    assert.ok((await run("list_teams")).printed.some((line) => line.startsWith(`${team.id} `)));
    process.env.SUBBRIDGE_TOKEN = await mintTokenOnTeam(team.name, ["team:view", "team:update", "team:delete"]);
    const onTeam = { instead: { [exampleId("get_team", "teamId")]: team.id }, remember: false };
    assert.equal((await run("get_team", onTeam)).kept.id, team.id);
    assert.equal((await run("update_team", onTeam)).kept.name, "Ada's studio");
    await run("delete_team", onTeam);
    process.env.SUBBRIDGE_TOKEN = running.demo.token;

    await run("invite_team_member");
    await joinFromInvitationMail(browser, running, { email: "grace@example.com", password: "Grace's long password" });
    const roster = (await running.api("GET", `/teams/${running.demo.teamId}/members`)).data as { user_id: string; email: string }[];
    const grace = roster.find((m) => m.email === "grace@example.com");
    assert.ok(grace, "Grace is on the roster");
    chain.stand(exampleId("get_team_member", "memberId"), grace.user_id);
    for (const id of ["list_team_members", "get_team_member", "update_team_member_role", "create_group", "get_group", "update_group", "list_groups"])
      await run(id);
    await run("delete_group");
    await run("remove_team_member");

    // An invitation that is withdrawn before anyone answers it.
    const { kept: invitation } = await run("invite_team_member", { remember: false, instead: { "grace@example.com": "hopper@example.com" } });
    chain.stand(exampleId("withdraw_team_invitation", "invitationId"), invitation.id);
    await run("list_team_invitations");
    await run("withdraw_team_invitation");
  });

  it("[embedded] the creator's Telegram account linked: identities, alert destinations; a recovery setting with a standby; then every record deleted", async () => {
    // The demo project's Telegram is the standby installation, and the bot the creator links through.
    const standby = await installSimTelegram(running);
    const ada: SimUser = { id: 184467440, firstName: "Ada" };
    assert.match(await linkTelegramOnSim(browser, running, running.demo, ada), /now linked/);
    const { printed: identities } = await run("list_identities");
    chain.stand(exampleId("unlink_identity", "identityId"), identities[0]!);
    // The email destination is one of the creator's own addresses.
    chain.stand("ada@example.com", running.demo.email);
    await run("replace_alert_destinations");
    await run("list_alert_destinations");

    // A broadcast to the chain's project (its bot claims broadcasts; the member who redeemed a code is
    // reached), then a scheduled one canceled.
    const { kept: broadcast } = await run("create_broadcast");
    assert.ok(["sending", "sent"].includes(broadcast.status), broadcast.status);
    for (const id of ["get_broadcast", "list_broadcasts", "list_broadcast_recipients"]) await run(id);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = (await running.api("POST", `/projects/${the.project.id}/broadcasts`, { text: "Tomorrow's call", send_at: tomorrow })).data;
    await run("cancel_broadcast", { instead: { [exampleId("cancel_broadcast", "broadcastId")]: scheduled.id } });

    const channel = async (title: string, chat: string) =>
      (
        await running.api("POST", `/projects/${the.project.id}/resources`, {
          connector: "telegram",
          kind: "channel",
          title,
          platform_ref: chat,
        })
      ).data.id as string;
    const recovery = samples.create_recovery_setting!.source;
    const [, resourceExample, standbyExample] = /resource_id: "([^"]+)",\s*standby_resource_id: "([^"]+)"/.exec(recovery)!;
    const installationExample = /standby_installation_id: "([^"]+)"/.exec(recovery)![1]!;
    chain.stand(resourceExample!, await channel("Night Owls channel", "-1001000000001"));
    const standbyChannel = await channel("Night Owls standby", "-1001000000002");
    chain.stand(standbyExample!, standbyChannel);
    chain.stand(installationExample, standby.id);
    const { kept: setting } = await run("create_recovery_setting");
    for (const id of ["get_recovery_setting", "update_recovery_setting", "list_recovery_settings"]) await run(id);
    assert.ok(setting.id);

    for (const id of ["list_identities", "list_groups", "get_team_analytics", "get_activity_log", "get_current_team", "ping"]) await run(id);
    for (const id of [
      "delete_recovery_setting",
      "unlink_identity",
      "delete_role",
      "delete_token",
      "delete_webhook_endpoint",
      "delete_canned_reply",
      "delete_coupon",
      "delete_pass_window",
      "archive_plan",
    ])
      await run(id);
    const [code] = (await running.api("GET", `/projects/${the.project.id}/plans/${the.plan.id}/access-codes`)).data as { id: string }[];
    chain.stand(exampleId("delete_access_code", "accessCodeId"), code!.id);
    await run("delete_access_code");
    // A plan with a subscription is archived, not deleted, and its perk stays: a plan and a place of their own go.
    const draft = await running.api("POST", `/projects/${the.project.id}/plans`, {
      name: "Yearly draft",
      price: { amount: 9900, currency: "EUR" },
      billing_cycle: "year",
      resources: [standbyChannel],
    });
    await run("delete_plan", { instead: { [exampleId("delete_plan", "planId")]: draft.data.id } });
    await run("delete_resource", { instead: { [exampleId("delete_resource", "resourceId")]: standbyChannel } });
    for (const id of ["uninstall_connector", "delete_payment_method", "delete_project"]) await run(id);
  });

  it("[embedded] every one of the reference's samples ran", () => {
    assert.deepEqual(
      Object.keys(samples).filter((id) => !ran.has(id)),
      [],
    );
  });

  it("[embedded] the reference on npm start's docs host shows the create_plan sample first, addressed to this deployment", async () => {
    const out = running.started.output();
    const docsUrl = /Reference\s+(http:\/\/\S+)/.exec(out)?.[1];
    const apiUrl = /REST API\s+(http:\/\/\S+?)\/v1\s/.exec(out)?.[1];
    assert.ok(docsUrl && apiUrl, out);
    for (const [width, name] of [
      [1280, "reference-sdk-sample"],
      [390, "reference-sdk-sample-390"],
    ] as const) {
      const { context, page } = await freshPage(browser);
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${docsUrl}/reference#tag/plans/POST/v1/projects/{project}/plans`);
      const code = page.locator("code.language-typescript", { hasText: "sb.plans.create(" });
      await code.waitFor();
      const text = await code.innerText();
      assert.ok(text.includes(`baseUrl: "${apiUrl}"`), text);
      assert.ok(text.includes(samples.create_plan!.ids.projectId!), text);
      await page.getByText("@subbridge/sdk", { exact: true }).first().waitFor();
      await screenshot(page, name, { fullPage: false });
      await context.close();
    }
  });

  /** The demo creator mints a token on their team `teamName` on the authorization host's tokens page. */
  async function mintTokenOnTeam(teamName: string, abilities: string[]): Promise<string> {
    const { context, page } = await freshPage(browser);
    try {
      await signIn(page, running.authUrl, running.demo.email, running.demo.password, "/tokens");
      await page.locator("#mint-team").selectOption({ label: teamName });
      await page.getByRole("button", { name: "Choose this team" }).click();
      await page.waitForURL(/\/tokens\?team=/);
      await page.getByLabel("Name").fill("Team admin script");
      for (const ability of abilities) await page.getByLabel(ability, { exact: true }).check();
      await page.getByRole("button", { name: "Mint token" }).click();
      await page.getByRole("heading", { name: "Your new token “Team admin script”" }).waitFor();
      return await page.getByLabel("Token", { exact: true }).inputValue();
    } finally {
      await context.close();
    }
  }

  /** `user` sends `text` to the chain's bot from the simulated Telegram's page form, as a person does. */
  async function simSend(user: SimUser, text: string): Promise<void> {
    const res = await fetch(`${running.simUrl}/send`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ bot: the.installation.platform_account_id, user_id: String(user.id), first_name: user.firstName, text }),
      redirect: "manual",
    });
    assert.ok(res.status < 400, `the simulated Telegram took the message: ${res.status} ${await res.text()}`);
  }
});
