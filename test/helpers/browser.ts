// Browser tests: playwright-core driving Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH),
// headless, never a downloaded browser. One browser per test file, a fresh context (cookies) per
// test. Screenshots go to test-artifacts/screenshots/<backend>/<name>.png for review.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { pendingMail } from "../../src/modules/mail/outbox.ts";
import { testDatabase } from "./backends.ts";
import { holdOpen } from "./open-resources.ts";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOTS = join(process.cwd(), "test-artifacts", "screenshots", process.env.TEST_DATABASE_URL ? "postgres" : "embedded");

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const release = holdOpen("Chromium", () => browser.close());
  browser.once("disconnected", release);
  return browser;
}

/** A fresh browser profile (no cookies) with its first page. */
export async function freshPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  return { context, page };
}

/** axe-core's browser build, read once: evaluated in the page (a page's CSP does not apply to the test's own evaluation). */
let axeSource: string | null = null;

/** The serious and critical accessibility violations axe-core finds on `page`, one line each. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))",
  )) as { id: string; impact: string | null; help: string; nodes: string[] }[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).join(", ")})`);
}

/** Saves a full-page screenshot for review (`fullPage: false`: the viewport, for very long pages); returns its path. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  // Every page reviewed is checked with axe-core: a serious or critical violation fails the test.
  const problems = await accessibilityProblems(page);
  if (problems.length) throw new Error(`${name}: axe-core finds ${problems.length} serious violation(s):\n${problems.join("\n")}`);
  // Every page reviewed is also checked for sideways scrolling: content wider than the viewport (a phone's 390 px) is a layout bug.
  const widths = (await page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")) as [number, number];
  if (widths[0] > widths[1]) throw new Error(`${name}: the page is ${widths[0]} px wide in a ${widths[1]} px viewport`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}

/** The first link in the newest message to `to` that starts with `prefix`. */
export async function linkFromMail(to: string, prefix: string): Promise<string> {
  const { db } = await testDatabase();
  const mail = (await pendingMail(db, to)).reverse();
  for (const message of mail) {
    const link = message.body.split(/\s+/).find((word) => word.startsWith(prefix));
    if (link) return link;
  }
  throw new Error(`no message to ${to} holds a link starting with ${prefix}`);
}

/** Signs in through the sign-in page (email and password; no second factor). */
export async function signIn(page: Page, authUrl: string, email: string, password: string, returnTo = "/"): Promise<void> {
  await page.goto(`${authUrl}/sign-in?return_to=${encodeURIComponent(returnTo)}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}
