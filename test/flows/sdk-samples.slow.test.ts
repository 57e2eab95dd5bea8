// Issue 35's check "the reference site's samples run against `npm start`": a chain of the reference's
// SDK samples (generated/sdk-samples.json, as /reference shows them) runs against a spawned npm start
// on a temp DATA_DIR with the demo token. Each sample runs as written, as an ES module in this one
// process, except that its `@subbridge/sdk` import points at the SDK's sources, {base_url} is the
// started API's address as its banner prints it, the spec's example ids are the ids the chain's
// earlier samples created, and the webhook example's host is a loopback address.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import type { SdkSample } from "../../codegen/sdk-samples.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";
import { freshPage, launchBrowser, screenshot } from "../helpers/browser.ts";
import { startWithMailReceiver, type StartWithMail } from "../helpers/messaging.ts";

const { samples } = readGeneratedJson<{ samples: Record<string, SdkSample> }>("sdk-samples.json");
const SDK = JSON.stringify(fileURLToPath(new URL("../../sdk/src/index.ts", import.meta.url)));

/** The example id the samples name for the record a sample keeps as `result` (`plan` → every sample's planId). */
function exampleIdOf(result: string): string | undefined {
  for (const sample of Object.values(samples)) if (sample.ids[`${result}Id`]) return sample.ids[`${result}Id`];
  return undefined;
}

describe("issue 35: the reference's SDK samples run against npm start", function () {
  this.timeout(180_000);
  let running: StartWithMail;
  let folder: string;
  let browser: Browser | undefined;

  after(async () => {
    delete process.env.SUBBRIDGE_TOKEN;
    await browser?.close();
    await running?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("[embedded] create a project, install Telegram, create a resource and a plan, enable a payment method, list, retrieve, update and publish the plan, create, list and delete a webhook endpoint, list tokens, ping; then 40 more samples as they are", async () => {
    // The webhook sample's host (hooks.example.com) need not resolve here: a loopback address stands in for it.
    running = await startWithMailReceiver("sdk-samples", { WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" });
    folder = mkdtempSync(join(tmpdir(), "subbridge-samples-"));
    process.env.SUBBRIDGE_TOKEN = running.demo.token;
    const apiUrl = /REST API\s+(http:\/\/\S+)/.exec(running.started.output())?.[1];
    assert.ok(apiUrl, `the banner names the REST API:\n${running.started.output()}`);
    /** Example id → the id the chain created in its place. */
    const created = new Map<string, string>();

    /** Runs one operation's sample; what it printed and the record it kept. */
    const run = async (operationId: string): Promise<{ printed: string[]; kept: any }> => {
      const sample = samples[operationId];
      assert.ok(sample, operationId);
      let code = sample.source.replace(`"@subbridge/sdk"`, SDK).replaceAll("{base_url}", apiUrl);
      // Whole string literals only: an example id may be part of another ("42" of a UUID).
      code = code
        .replace(/"([^"\\]*)"/g, (literal, text: string) => (created.has(text) ? JSON.stringify(created.get(text)) : literal))
        .replaceAll('"https://hooks.example.com/', '"https://127.0.0.1/');
      if (sample.result) code += `\nexport { ${sample.result} };\n`;
      const file = join(folder, `${operationId}.mts`);
      writeFileSync(file, code);
      const printed: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => void printed.push(args.join(" "));
      let module: Record<string, unknown>;
      try {
        module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      } catch (error) {
        const fields = (error as { fields?: unknown }).fields;
        throw new Error(
          `${operationId}'s sample failed:\n${code}\n${error instanceof Error ? error.stack : String(error)}\n${JSON.stringify(fields ?? "")}`,
        );
      } finally {
        console.log = log;
      }
      const kept = sample.result ? module[sample.result] : undefined;
      const example = sample.result ? exampleIdOf(sample.result) : undefined;
      if (example && (kept as { id?: string })?.id) created.set(example, (kept as { id: string }).id);
      return { printed, kept };
    };

    const { kept: project } = await run("create_project");
    assert.equal(project.name, "Night Owls");
    const { kept: installation } = await run("install_connector");
    assert.equal(installation.connector, "telegram");
    assert.equal(installation.project_id, project.id);
    const { kept: resource } = await run("create_resource");
    assert.equal(resource.project_id, project.id);
    const { kept: plan } = await run("create_plan");
    assert.deepEqual(plan.resources, [resource.id]);
    assert.equal(plan.status, "draft");

    // A new project's one payment method, access codes, sells nothing until it has currencies and
    // billing cycles and is enabled: the sample sets all three.
    const methods = await run("list_payment_methods");
    const accessCodes = methods.printed.find((line) => line.endsWith(" Access codes"))?.split(" ")[0];
    assert.ok(accessCodes, methods.printed.join("\n"));
    created.set(samples.update_payment_method!.ids.paymentMethodId!, accessCodes);
    assert.equal((await run("update_payment_method")).kept.enabled, true);

    const listed = await run("list_plans");
    assert.deepEqual(listed.printed, [`${plan.id} ${plan.name}`]);
    assert.equal((await run("get_plan")).kept.id, plan.id);
    assert.deepEqual((await run("update_plan")).kept.price, { amount: 1299, currency: "EUR" });
    assert.equal((await run("publish_plan")).kept.status, "published");

    const { kept: endpoint } = await run("create_webhook_endpoint");
    assert.ok((await run("list_webhook_endpoints")).printed.some((line) => line.startsWith(`${endpoint.id} `)));
    await run("delete_webhook_endpoint");
    assert.ok(!(await run("list_webhook_endpoints")).printed.some((line) => line.startsWith(`${endpoint.id} `)));

    const tokens = await run("list_tokens");
    assert.ok(tokens.printed.length >= 1, "the demo token is listed");
    const ping = await run("ping");
    assert.equal(ping.kept.status, "ok");

    // More of the reference, each sample as it is, must run.
    const failed: string[] = [];
    for (const id of [
      "get_activity_log",
      "get_current_team",
      "list_projects",
      "get_project",
      "update_project",
      "list_connectors",
      "list_project_connectors",
      "get_project_connector",
      "update_project_connector",
      "list_resources",
      "get_resource",
      "update_resource",
      "create_coupon",
      "list_coupons",
      "create_pass_window",
      "list_pass_windows",
      "bulk_generate_access_codes",
      "list_access_codes",
      "archive_plan",
      "create_token",
      "get_token",
      "create_canned_reply",
      "list_canned_replies",
      "list_subscribers",
      "list_subscriptions",
      "list_transactions",
      "get_project_analytics",
      "get_team_analytics",
      "get_deep_link",
      "get_portal_url",
      "list_identities",
      "list_alert_destinations",
      "list_webhook_events",
      "list_roles",
      "list_groups",
      "list_teams",
      "list_team_members",
      "list_creator_tasks",
      "list_support_conversations",
      "list_recovery_settings",
    ])
      await run(id).catch((error: Error) => failed.push(error.message));
    assert.deepEqual(failed, []);
  });

  it("[embedded] the reference on npm start's docs host shows the create_plan sample first, addressed to this deployment", async () => {
    assert.ok(running, "npm start runs (the chain started it)");
    const out = running.started.output();
    const docsUrl = /Reference\s+(http:\/\/\S+)/.exec(out)?.[1];
    const apiUrl = /REST API\s+(http:\/\/\S+?)\/v1\s/.exec(out)?.[1];
    assert.ok(docsUrl && apiUrl, out);
    browser = await launchBrowser();
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
});
