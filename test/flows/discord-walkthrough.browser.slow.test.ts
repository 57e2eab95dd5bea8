// Issue 45's walk-through on `npm start` with nothing configured, in Chromium: the creator connects
// a Discord server to the demo project from the dashboard ("Add to Discord", the simulated Discord's
// consent page, back to the dashboard), gates one of its roles, connects the simulated Stripe and
// sells a plan granting the role; a member opens the plan on the portal, signs in with Discord on the
// simulated consent page (its own origin, an "Authorize" button, their id and name), pays with 4242
// and lands on "You're in". REST then lists the member on Discord with their user id, the active
// subscription and the role granted within 75 s (the connector sweep runs each minute), and the
// simulated Discord's page shows them in the server holding the role, /status answers them, and
// cancelling on the portal ends the subscription with its period, the role kept until then. Screenshots under
// test-artifacts/screenshots/embedded/discord-*.png.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { freshPage, launchBrowser, screenshot, signIn } from "../helpers/browser.ts";
import { demoStart } from "../helpers/demo-start.ts";
import { FIRST_START_READY, freePort, startNpm, tempDir, type StartedProcess } from "../helpers/processes.ts";

describe("issue 45's Discord walk-through on npm start (Chromium)", function () {
  this.timeout(420_000);
  let started: StartedProcess;
  let browser: Browser;

  after(async () => {
    await browser?.close();
    if (started) assert.equal(await started.stop(), 0, started.output().slice(-4000));
  });

  it("[embedded] a creator connects a Discord server and sells a role; a member signs in with Discord, pays by card and holds the role", async () => {
    const dataDir = tempDir("discord-walk");
    const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: "warn" };
    for (const name of ["API", "MCP", "AUTH", "SITE", "DOCS", "PORTAL", "DASHBOARD"]) env[`${name}_PORT`] = String(await freePort());
    [started, browser] = await Promise.all([startNpm(env, FIRST_START_READY), launchBrowser()]);
    const out = started.output();
    const discordSim = /a Discord user's: (http:\/\/127\.0\.0\.1:\d+)\/_sim\/discord;/.exec(out)?.[1];
    assert.ok(discordSim, `the banner names the simulated Discord's page:\n${out}`);
    const { twinUrl, password, projectId, api } = demoStart(out, dataDir, env.API_PORT!);
    const authUrl = `http://localhost:${env.AUTH_PORT}`;
    const portalUrl = `http://localhost:${env.PORTAL_PORT}`;
    const problems: string[] = [];
    const watch = (page: Page) => {
      page.on("console", (message) => {
        if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico"))
          problems.push(`${message.text()} (${message.location().url})`);
      });
      page.on("pageerror", (err) => problems.push(String(err)));
    };

    // The creator, signed in, adds the bot to a server from the dashboard's Connectors page: Discord's
    // consent screen (the simulated one), back to the dashboard, then gates the server's VIP role.
    const creator = await freshPage(browser);
    watch(creator.page);
    const dashboardUrl = `http://localhost:${env.DASHBOARD_PORT}`;
    await signIn(creator.page, authUrl, "demo@subbridge.local", password, "/");
    await creator.page.goto(`${dashboardUrl}/projects/${projectId}/connectors`);
    await creator.page.getByRole("button", { name: "Add to Discord" }).click();
    await creator.page.waitForURL((url) => url.href.startsWith(`${discordSim}/oauth2/authorize?`));
    const consent = new URL(creator.page.url());
    assert.equal(consent.searchParams.get("scope"), "bot applications.commands");
    assert.equal(consent.searchParams.get("redirect_uri"), `${dashboardUrl}/connectors/discord/callback`);
    await creator.page.getByLabel("Server name").fill("Night Owls");
    await screenshot(creator.page, "discord-1-add-bot");
    await creator.page.getByRole("button", { name: "Authorize" }).click();
    await creator.page.getByText("Connected the Discord server Night Owls.").waitFor({ timeout: 30_000 });
    await screenshot(creator.page, "discord-2-connected");
    await creator.page.getByRole("link", { name: "Continue to Connectors" }).click();
    await creator.page.getByRole("button", { name: "Gate VIP", exact: true }).click();
    await creator.page.getByRole("list", { name: "The server's roles and channels" }).getByText("Gated").first().waitFor();
    await screenshot(creator.page, "discord-3-gated");
    const installation = (await api("GET", `/projects/${projectId}/connectors/discord`)).data;
    assert.equal(installation.platform_account_name, "Night Owls");
    const role = (await api("GET", `/projects/${projectId}/resources`)).data.find((r: any) => r.title === "VIP");
    assert.ok(role, "the gated role is a resource");
    assert.match(role.platform_ref, /^[0-9]{17,20}$/);

    // Stripe, from the Payments page through the twin's onboarding page; the plan over REST.
    await creator.page.goto(`${authUrl}/payments`);
    await creator.page.getByRole("button", { name: "Connect Stripe" }).click();
    await creator.page.waitForURL((url) => url.href.startsWith(`${twinUrl}/setup/e/acct_`));
    await creator.page.getByRole("button", { name: "Agree and submit" }).click();
    await creator.page.waitForURL(`${authUrl}/payments?done=stripe-connected`);
    await creator.context.close();
    const plan = (
      await api("POST", `/projects/${projectId}/plans`, {
        name: "Gold monthly",
        price: { amount: 700, currency: "USD" },
        billing_cycle: "month",
        resources: [role.id],
      })
    ).data;
    await api("POST", `/projects/${projectId}/plans/${plan.id}/publish`, {});
    const project = (await api("GET", `/projects/${projectId}`)).data;

    // The member: the plan on the portal, "Sign in to pay by card", "Sign in with Discord".
    const member = await freshPage(browser);
    watch(member.page);
    const planUrl = `${portalUrl}/${project.handle}?plan=${plan.id}`;
    await member.page.goto(planUrl);
    await member.page.getByRole("link", { name: "Sign in to pay by card" }).click();
    await screenshot(member.page, "discord-4-portal-sign-in");
    await member.page.getByRole("link", { name: "Sign in with Discord" }).click();
    await member.page.waitForURL((url) => url.href.startsWith(`${discordSim}/oauth2/authorize?`));
    const userId = String(700_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 47)));
    await member.page.getByLabel(/Your Discord user id/).fill(userId);
    await member.page.getByLabel("Your name").fill("Ada");
    await screenshot(member.page, "discord-5-consent");
    await member.page.getByRole("button", { name: "Authorize" }).click();
    await member.page.waitForURL(planUrl);

    await member.page.getByRole("button", { name: "Pay by card" }).click();
    await member.page.waitForURL(`${twinUrl}/c/pay/**`);
    await member.page.getByLabel("Email").fill("ada@example.com");
    await member.page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await member.page.getByLabel("Expiry (MM / YY)").fill("12 / 34");
    await member.page.getByLabel("CVC").fill("123");
    await member.page.getByRole("button", { name: "Subscribe" }).click();
    await member.page.getByRole("heading", { name: "You're in" }).waitFor({ timeout: 60_000 });
    await screenshot(member.page, "discord-6-youre-in");
    await member.page.setViewportSize({ width: 390, height: 800 });
    await screenshot(member.page, "discord-6-youre-in-390");

    // REST: the member on Discord, the active subscription, and the role granted within 75 s.
    const listed = (await api("GET", `/projects/${projectId}/members?platform=discord`)).data;
    const row = listed.find((m: any) => m.external_user_id === userId);
    assert.ok(row, JSON.stringify(listed));
    assert.equal(row.connector_key, "discord");
    const [subscription] = (await api("GET", `/subscriptions?plan_id=${plan.id}`)).data;
    assert.equal(subscription.status, "active");
    const deadline = Date.now() + 75_000;
    for (;;) {
      const now = (await api("GET", `/projects/${projectId}/members?platform=discord`)).data.find((m: any) => m.id === row.id);
      if (now.access_state === "granted") break;
      assert.ok(Date.now() < deadline, `the role is granted within 75 s: ${JSON.stringify(now)}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    // In the server, /status answers Ada (the simulated Discord signs the interaction as Discord does).
    const status = await fetch(`${discordSim}/_sim/discord/interactions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        url: `http://localhost:${env.API_PORT}/connectors/discord/interactions`,
        command: "status",
        guild_id: installation.platform_account_id,
        user: { id: userId, username: "ada", global_name: "Ada" },
      }),
    });
    const answered = (await status.json()) as { status: number; body: { type: number; data: { content: string; flags: number } } };
    assert.equal(answered.status, 200);
    assert.equal(answered.body.data.flags & 64, 64, "an answer only Ada sees");
    assert.match(answered.body.data.content, /Gold/);
    // The simulated Discord: Ada is in the server and holds the role.
    const sim = await freshPage(browser);
    await sim.page.goto(`${discordSim}/_sim/discord`);
    const server = sim.page.getByRole("region", { name: /Night Owls/ });
    assert.match(
      await server
        .getByRole("listitem")
        .filter({ hasText: `Ada (${userId})` })
        .innerText(),
      /VIP/,
    );
    await screenshot(sim.page, "discord-7-server");

    // Ada cancels on the portal: the subscription ends with its paid period and the role stays until
    // then (its removal at the period's end is test/connectors/discord-parity.test.ts's, on a clock).
    await member.page.setViewportSize({ width: 1100, height: 800 });
    await member.page.goto(`${portalUrl}/${project.handle}/account`);
    await member.page.getByRole("link", { name: "Cancel subscription" }).click();
    await member.page.getByRole("button", { name: "Cancel subscription" }).click();
    await screenshot(member.page, "discord-8-cancelled");
    const after = (await api("GET", `/subscriptions/${subscription.id}`)).data;
    assert.equal(after.status, "canceled", JSON.stringify(after));
    assert.ok(after.ends_at && after.ends_at === subscription.ends_at, JSON.stringify(after));
    await sim.page.reload();
    assert.match(
      await server
        .getByRole("listitem")
        .filter({ hasText: `Ada (${userId})` })
        .innerText(),
      /VIP/,
    );
    assert.deepEqual(problems, []);
  });
});
