// The marketing and reference sites in Chromium: the pages render with their one stylesheet and
// no CSP violation, keyboard users can skip to the content, the API reference is rendered by
// Scalar from the OpenAPI document (an operation's summary appears), the error reference opens
// at the anchor a real docs_url names, and the guides render with highlighted code, working copy
// buttons and the search box (desktop and 390 px). Screenshots for review.
// (Browser-side checks are passed to evaluate as text: the project compiles without the DOM types.)
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { freshPage, launchBrowser, screenshot } from "../helpers/browser.ts";
import { allOrNothing } from "../helpers/open-resources.ts";
import { startSites, type RunningSites } from "../helpers/site.ts";
import { createTestCreator } from "../helpers/fixtures.ts";

/** Console errors and failed requests (a CSP violation is reported as a console error). */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  return problems;
}

describe("marketing and reference sites (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let sites: RunningSites;
  before(async () => {
    [browser, sites] = await allOrNothing([launchBrowser(), startSites()]);
  });
  after(async () => {
    await browser?.close();
    await sites?.close();
  });

  it("marketing home: rendered with its stylesheet, a skip link, the Link header and its twins", async () => {
    const { context, page } = await freshPage(browser);
    const problems = watchProblems(page);
    const response = await page.goto(sites.site.url + "/");
    assert.ok(response);
    const link = await response.headerValue("link");
    for (const rel of ["api-catalog", "service-desc", "service-doc", "describedby"]) assert.match(link!, new RegExp(`rel="${rel}"`));
    assert.match((await response.headerValue("vary"))!, /Accept/);
    await page.getByRole("heading", { level: 1, name: "Paid memberships for your community" }).waitFor();
    // The stylesheet applied: the header is a flex row.
    assert.equal(await page.evaluate("getComputedStyle(document.querySelector('.site-header')).display"), "flex");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate("document.activeElement.textContent"), "Skip to content");
    await screenshot(page, "site-home");
    await page.keyboard.press("Enter");
    // Following the link is asynchronous: wait for it (on a loaded machine the URL was read first).
    await page.waitForURL(/#main$/, { timeout: 10_000 });

    // The twin, as a reader's browser follows the footer link, and to a Markdown-preferring fetch.
    const twin = await page.request.get(sites.site.url + "/index.md");
    assert.equal(twin.headers()["content-type"], "text/markdown; charset=utf-8");
    assert.match(await twin.text(), /^# Paid memberships for your community\n/);
    const negotiated = await page.request.get(sites.site.url + "/", { headers: { Accept: "text/markdown" } });
    assert.equal(await negotiated.text(), await twin.text());
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("pricing and connectors render their tables and catalog", async () => {
    const { context, page } = await freshPage(browser);
    const problems = watchProblems(page);
    await page.goto(sites.site.url + "/pricing");
    const table = page.getByRole("table");
    assert.deepEqual(await table.locator("thead th").allInnerTexts(), ["", "Free", "Starter", "Growth"]);
    await page.getByRole("heading", { name: "What Growth unlocks" }).waitFor();
    assert.equal(await page.getByRole("link", { name: "Pricing" }).getAttribute("aria-current"), "page");
    await screenshot(page, "site-pricing");

    await page.goto(sites.site.url + "/connectors");
    for (const name of ["Telegram", "Discord", "Slack", "WhatsApp"]) await page.getByRole("heading", { level: 3, name }).waitFor();
    await page.goto(sites.site.url + "/connectors#telegram");
    assert.equal(await page.locator(":target").innerText(), "Telegram");
    await screenshot(page, "site-connectors");

    await page.goto(sites.site.url + "/developers");
    await page.getByRole("link", { name: "@subbridge/sdk on npm" }).waitFor();
    await screenshot(page, "site-developers");

    // At 390 px the pricing table and the developers page's code scroll sideways: each takes keyboard focus, named.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(sites.site.url + "/pricing");
    const pricing = page.getByRole("table", { name: "Pricing" });
    assert.equal(await pricing.getAttribute("tabindex"), "0");
    await screenshot(page, "site-pricing-390");
    await page.goto(sites.site.url + "/developers");
    assert.ok((await page.getByRole("group", { name: /^Code block \d+$/ }).count()) > 0);
    await screenshot(page, "site-developers-390");
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("reference: Scalar renders the OpenAPI document from this host, an operation's summary visible", async () => {
    const { context, page } = await freshPage(browser);
    const problems = watchProblems(page);
    const external: string[] = [];
    page.on("request", (request) => {
      const origin = new URL(request.url()).origin;
      if (origin !== sites.docs.url && !request.url().startsWith("data:") && !request.url().startsWith("blob:")) external.push(request.url());
    });
    await page.goto(sites.docs.url + "/reference");
    await page.getByRole("heading", { name: "SubBridge API" }).first().waitFor({ timeout: 60_000 });
    await screenshot(page, "docs-reference", { fullPage: false });
    // Scalar lists the operations by summary in its sidebar; list_projects is "List the team's projects".
    await page.getByRole("button", { name: "Open Group - Projects" }).click();
    await page.getByRole("link", { name: /List the team's projects/ }).click();
    await page.waitForURL(/#tag\/projects\/GET\/v1\/projects$/);
    await page.getByRole("heading", { name: "List the team's projects" }).first().waitFor({ timeout: 60_000 });
    assert.ok(await page.getByText("list_projects", { exact: true }).first().isVisible(), "the operation id is shown");
    await page.waitForTimeout(500);
    await screenshot(page, "docs-reference-operation", { fullPage: false });

    // Scalar takes the system's dark preference: its colours, and the site's header around it, stay readable; at 390 px too.
    for (const [scheme, width, shot] of [
      ["light", 390, "docs-reference-390"],
      ["dark", 1100, "docs-reference-dark"],
      ["dark", 390, "docs-reference-dark-390"],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 844 });
      await page.goto(sites.docs.url + "/reference");
      await page.getByRole("heading", { name: "SubBridge API" }).first().waitFor({ timeout: 60_000 });
      assert.equal(await page.evaluate("document.body.className"), `${scheme}-mode`);
      await page.waitForTimeout(500);
      await screenshot(page, shot, { fullPage: false });
    }
    assert.deepEqual(external, [], "nothing is loaded from another host");
    assert.deepEqual(
      problems.filter((p) => /Content Security Policy|Refused/.test(p)),
      [],
    );
    await context.close();
  });

  it("reference: a request from the reference page's origin reaches the API with a bearer token (CSP connect-src and CORS)", async () => {
    const creator = await createTestCreator({ label: "reference-cors" });
    const { context, page } = await freshPage(browser);
    await page.goto(sites.docs.url + "/reference");
    // What Scalar's "Test request" does: a cross-origin fetch with Authorization and, for a write, Idempotency-Key (a preflight).
    const script = `(async () => {
      const read = await fetch(${JSON.stringify(sites.api.url + "/v1/teams/current")}, { headers: { Authorization: "Bearer ${creator.token}" } });
      const write = await fetch(${JSON.stringify(sites.api.url + "/v1/projects")}, {
        method: "POST",
        headers: { Authorization: "Bearer ${creator.token}", "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
        body: JSON.stringify({}),
      });
      return { read: read.status, requestId: read.headers.get("X-Request-Id"), write: write.status, code: (await write.json()).error?.code };
    })()`;
    const answer = (await page.evaluate(script)) as { read: number; requestId: string | null; write: number; code: string };
    assert.equal(answer.read, 200);
    assert.ok(answer.requestId, "exposed response headers are readable");
    assert.equal(answer.write, 422, "the preflighted write reached the API (and was validated)");
    assert.equal(answer.code, "VALIDATION_FAILED");
    await context.close();
  });

  it("error reference: opens at the anchor a real docs_url names", async () => {
    const res = await fetch(`${sites.api.url}/v1/teams/current`);
    const { error } = (await res.json()) as { error: { docs_url: string } };
    const named = new URL(error.docs_url); // http://docs.test/errors#authentication_required
    const { context, page } = await freshPage(browser);
    const problems = watchProblems(page);
    await page.goto(sites.docs.url + named.pathname + named.hash);
    const target = page.locator(":target");
    assert.equal(await target.getAttribute("id"), named.hash.slice(1));
    assert.equal(await target.innerText(), "AUTHENTICATION_REQUIRED");
    assert.ok(await target.isVisible());
    // The named entry is highlighted and scrolled to.
    assert.notEqual(await page.evaluate("getComputedStyle(document.querySelector(':target')).backgroundColor"), "rgba(0, 0, 0, 0)");
    assert.ok(((await page.evaluate("window.scrollY")) as number) > 0);
    await screenshot(page, "docs-error-reference", { fullPage: false }); // opened at the anchor
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("guides and the event catalog render", async () => {
    const { context, page } = await freshPage(browser);
    const problems = watchProblems(page);
    for (const [path, heading, shot] of [
      ["/", "SubBridge reference", "docs-home"],
      ["/guides/rest-api", "REST API guide", "docs-guide-rest-api"],
      ["/guides/mcp", "MCP server guide", "docs-guide-mcp"],
      ["/guides/webhooks", "Webhooks guide", "docs-guide-webhooks"],
      ["/webhooks/events", "Webhook events", "docs-webhook-events"],
    ] as const) {
      await page.goto(sites.docs.url + path);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      // The event catalog is too long for one full-page image.
      await screenshot(page, shot, { fullPage: path !== "/webhooks/events" });
    }
    await page.goto(sites.docs.url + "/webhooks/events#subscription.created");
    assert.equal(await page.locator(":target").innerText(), "subscription.created");
    await page.goto(sites.docs.url + "/guides/mcp#toolsets");
    assert.ok((await page.getByRole("table").first().locator("tbody tr").count()) > 10);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("guides: highlighted code, copy buttons that copy, and the search box finding a section (desktop and 390 px)", async () => {
    const { context, page } = await freshPage(browser);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: sites.docs.url });
    const problems = watchProblems(page);
    for (const [width, suffix] of [
      [1100, ""],
      [390, "-390"],
    ] as const) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(sites.docs.url + "/guides/rest-api");
      // Highlighted on the server: a keyword is coloured unlike the code around it.
      const keyword = page.locator("pre code.hljs .hljs-keyword").first();
      assert.ok(await keyword.isVisible());
      const colours = (await page.evaluate(
        "[getComputedStyle(document.querySelector('pre code.hljs .hljs-keyword')).color, getComputedStyle(document.querySelector('pre code.hljs')).color]",
      )) as [string, string];
      assert.notEqual(colours[0], colours[1]);

      // A code block, scrolling sideways at 390 px, takes keyboard focus under the name its copy button repeats.
      const block = page.getByRole("group", { name: "Code block 1", exact: true });
      assert.deepEqual(await block.evaluate((pre: { localName: string; tabIndex: number }) => [pre.localName, pre.tabIndex]), ["pre", 0]);
      const copy = page.getByRole("button", { name: "Copy code block 1", exact: true });
      // The word the button shows (the rest of its name is visually hidden).
      const shown = (button: { firstElementChild: { textContent: string } | null }) => button.firstElementChild?.textContent;
      assert.equal(await copy.evaluate(shown), "Copy");
      await copy.click();
      // The clipboard answers asynchronously: the button (its name starting with the word it shows) and the live region then say so.
      const copied = page.getByRole("button", { name: "Copied code block 1", exact: true });
      assert.equal(await copied.evaluate(shown), "Copied");
      await page.locator("[aria-live=polite]", { hasText: "Copied to the clipboard." }).waitFor();
      const clipboard = (await page.evaluate("navigator.clipboard.readText()")) as string;
      assert.equal(clipboard, ((await page.evaluate("document.querySelector('main pre code').textContent")) as string).replace(/\n$/, ""));
      assert.match(clipboard, /^npm install @subbridge\/sdk/);
      await screenshot(page, `docs-guide-code${suffix}`, { fullPage: false });

      await page.getByRole("searchbox", { name: "Search the reference" }).fill("idempotency");
      await page.keyboard.press("Enter");
      await page.waitForURL(/\/search\?q=idempotency$/);
      const first = page.locator(".search-results li").first();
      assert.match(await first.innerText(), /REST API guide › Idempotency/);
      assert.ok(await first.locator("mark").first().isVisible());
      await screenshot(page, `docs-search${suffix}`);
      await first.getByRole("link").click();
      await page.waitForURL(/\/guides\/rest-api#idempotency$/);
      assert.equal(await page.locator(":target").innerText(), "Idempotency");
    }

    // The dark scheme's code colours, for review.
    await page.setViewportSize({ width: 1100, height: 800 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(sites.docs.url + "/guides/mcp#cursor");
    await screenshot(page, "docs-guide-code-dark", { fullPage: false });
    assert.deepEqual(problems, []);
    await context.close();

    // Without scripts there is no copy button, and search still works (a plain GET form).
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    await plain.goto(sites.docs.url + "/guides/webhooks");
    assert.equal(await plain.locator("button.copy-code").count(), 0);
    await plain.getByRole("searchbox", { name: "Search the reference" }).fill("retries");
    await plain.getByRole("button", { name: "Search" }).click();
    await plain.waitForURL(/\/search\?q=retries$/);
    assert.ok((await plain.locator(".search-results li").count()) > 0);
    await noScript.close();
  });
});
