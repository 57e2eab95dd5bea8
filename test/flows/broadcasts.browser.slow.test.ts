// The dashboard's Broadcasts page on a spawned `npm start`, in Chromium: the demo creator composes a
// message, asks for a test (refused in words: no linked Telegram account), sends it now to the
// project's members, sees it in the list with its totals and its recipients, then schedules one and cancels it through the confirm dialog. The
// page is looked at at 1280 and 390 px (axe-core, no sideways scroll, no browser error).
// Screenshots: test-artifacts/screenshots/embedded/broadcasts-*.png.
import assert from "node:assert/strict";
import { randomBytes, randomInt } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { freshPage, launchBrowser, screenshot, signIn } from "../helpers/browser.ts";
import { FIRST_START_READY, freePort, startNpm, tempDir, type StartedProcess } from "../helpers/processes.ts";
import { demoStart } from "../helpers/demo-start.ts";

describe("the dashboard's Broadcasts page on npm start (Chromium)", function () {
  this.timeout(600_000);
  let started: StartedProcess;
  let browser: Browser;

  after(async () => {
    await browser?.close();
    if (started) assert.equal(await started.stop(), 0);
  });

  it("[embedded] composes, refuses a test without a linked account, sends, lists recipients, schedules and cancels", async () => {
    const dataDir = tempDir("broadcasts-page");
    const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: "warn" };
    for (const name of ["API", "MCP", "AUTH", "SITE", "DOCS", "PORTAL", "DASHBOARD"]) env[`${name}_PORT`] = String(await freePort());
    [started, browser] = await Promise.all([startNpm(env, FIRST_START_READY), launchBrowser()]);
    const { password, projectId, api } = demoStart(started.output(), dataDir, env.API_PORT!);
    const installed = (
      await api("POST", `/projects/${projectId}/connectors/telegram`, {
        fields: { bot_token: `${randomInt(1_000_000_000, 9_000_000_000)}:${randomBytes(27).toString("base64url")}` },
      })
    ).data;

    const problems: string[] = [];
    const { page }: { page: Page } = await freshPage(browser);
    page.on("console", (message) => {
      if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico")) problems.push(message.text());
    });
    page.on("pageerror", (err) => problems.push(String(err)));
    await signIn(page, `http://localhost:${env.AUTH_PORT}`, "demo@subbridge.local", password, "/");
    await page.getByRole("main").getByRole("link", { name: "Dashboard" }).first().click();
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Broadcasts", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Broadcasts" }).waitFor();

    await page.getByLabel("Message").fill("Doors open at nine.");
    await page.getByLabel("Portal button (optional)").fill("Your membership");
    await page.getByRole("button", { name: "Send test to me" }).click();
    await page.getByRole("alert").filter({ hasText: "linked account" }).waitFor();
    // The refusal is the API's 422, which the browser also logs as a failed request.
    problems.splice(0);
    await page.getByRole("button", { name: "Send now" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /Broadcast is sending|Broadcast scheduled/ })
      .waitFor();
    await page.getByRole("cell", { name: "Doors open at nine." }).waitFor();
    assert.equal(await page.getByRole("alert").count(), 0, "the test's refusal is cleared by the send");
    const list = (await api("GET", `/projects/${projectId}/broadcasts`)).data;
    const t = list[0].totals;
    assert.equal(t.recipients, t.queued + t.sent + t.blocked + t.failed + t.opted_out, JSON.stringify(list[0]));
    await page
      .getByRole("cell", { name: new RegExp(`of ${t.recipients}\\)$`) })
      .first()
      .waitFor();
    await page
      .getByRole("button", { name: /^Recipients of the broadcast/ })
      .first()
      .click();
    await page.getByRole("heading", { level: 2, name: /^Broadcast of/ }).waitFor();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForLoadState("networkidle");
      await screenshot(page, `broadcasts-${width}`);
      assert.equal(await page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth"), false, `${width} px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByLabel("Message").fill("Tomorrow's session moves to ten.");
    await page.getByLabel("Send at (UTC, optional)").fill(new Date(Date.now() + 86_400_000).toISOString().slice(0, 16).replace("T", " "));
    await page.getByRole("button", { name: "Schedule" }).click();
    await page.getByRole("cell", { name: "Tomorrow's session moves to ten." }).waitFor();
    await page
      .getByRole("button", { name: /^Recipients of the broadcast/ })
      .first()
      .click();
    await page.getByRole("button", { name: "Cancel broadcast", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel it", exact: true }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.getByRole("cell", { name: "canceled", exact: true }).waitFor();
    assert.equal(installed.connector, "telegram");
    assert.deepEqual(problems, []);
  });
});
