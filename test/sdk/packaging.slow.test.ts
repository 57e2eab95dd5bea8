// The published package as a third party gets it: `npm pack` in sdk/, the tarball installed into
// an empty folder (with TypeScript 5.9 from the registry), and issue 35's program written with the
// resource methods (list projects, install Telegram, a resource and a plan with an idempotency key
// and no defaulted field, pages, typed errors, webhooks) typechecked strictly
// (exactOptionalPropertyTypes, no skipLibCheck; misspelled options must fail) under nodenext and
// bundler resolution and run against a live API; an editor's hover showing an operation's docs; a
// CommonJS consumer that requires the package; the command through npx (in the project, and with
// -p from a folder without it, as the README shows); and the publish check (npm publish --dry-run,
// publint, are-the-types-wrong) on the tarball. Slow (npm install): about half a minute.
import assert from "node:assert/strict";
import { execFile, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startApi, TEST_APP_KEY, type RunningApi } from "../helpers/server.ts";
import { testDatabase } from "../helpers/backends.ts";
import { messageSignatureHeaders } from "../../src/modules/webhooks/message-signature.ts";
import { activeSigningKey, signingKeyDirectory } from "../../src/modules/webhooks/signing-keys.ts";
import { createTestCreator, tokenFor } from "../helpers/fixtures.ts";
import { newTelegramBot } from "../helpers/platforms.ts";
import { ROOT } from "../connector/manifest-files.ts";

const SDK = join(ROOT, "sdk");
/** The shipped Telegram manifest's version, as a pattern (the validator prints it). */
const TELEGRAM_VERSION = (
  JSON.parse(readFileSync(join(ROOT, "connectors/telegram/connector.json"), "utf8")) as { version: string }
).version.replaceAll(".", "\\.");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false", ...env }, timeout: 120_000 });
}

function succeed(command: string, args: string[], cwd: string): string {
  const result = run(command, args, cwd);
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/**
 * The consumer a third party would write; typechecked strictly (skipLibCheck off) against the
 * installed declarations. It reads its settings from a generated module, not from process.env, so
 * it compiles with the DOM library alone.
 */
const CONSUMER = `
import {
  AbortedError,
  ConnectionError,
  createClient,
  PermissionError,
  NotFoundError,
  SubBridgeError,
  TimeoutError,
  ValidationError,
  signWebhookPayload,
  verifyWebhook,
  type components,
  type ErrorCode,
} from "@subbridge/sdk";
import {
  verifyWebhook as verifyFromSubpath,
  WEBHOOK_EVENT_TYPES,
  createMemoryDeduplicator,
  verifyWebhookMessageSignature,
  type WebhookEventOf,
  type SigningKeyDirectory,
} from "@subbridge/sdk/webhooks";
import { validateManifest, CONNECTOR_SCHEMA_URL, type ConnectorManifest, type ManifestProblem } from "@subbridge/sdk/connector";
import { settings } from "./settings.js";

type PlanCreate = components["schemas"]["PlanCreate"];

async function main() {
  const sb = createClient({ baseUrl: settings.baseUrl, token: settings.token });
  const { data: ping } = await sb.system.ping();
  // The REST address as the server's start banner prints it, /v1 included; a limit per attempt and per call.
  const fromBanner = await createClient({ baseUrl: settings.baseUrl + "/v1/", timeoutMs: 30_000 }).system.ping({ timeoutMs: 10_000 });
  let aborted: string | undefined;
  try {
    await sb.teams.retrieveCurrent({ signal: AbortSignal.abort() });
  } catch (error) {
    if (error instanceof AbortedError && error instanceof SubBridgeError && !(error instanceof ConnectionError)) aborted = error.code;
  }
  const { data: team } = await sb.teams.retrieveCurrent();

  // The issue's program: list projects, install Telegram, create a resource and a plan with an
  // idempotency key (no defaulted field spelled out), paginate, typed errors.
  const projects = await sb.projects.list({ per_page: 10 });
  const project = projects.data[0]!.id;
  const { data: installation } = await sb.projectConnectors.install(
    project,
    "telegram",
    { fields: { bot_token: settings.botToken } },
    { idempotencyKey: "install-" + project },
  );
  const { data: resource } = await sb.resources.create(project, { kind: "perk", title: "Monthly call" });
  const plan: PlanCreate = { name: "Monthly", price: { amount: 900, currency: "EUR" }, billing_cycle: "month", resources: [resource.id] };
  const first = await sb.plans.create(project, plan, { idempotencyKey: "plan-" + project });
  const again = await sb.plans.create(project, plan, { idempotencyKey: "plan-" + project });
  await sb.plans.create(project, { ...plan, name: "Yearly", billing_cycle: "year" });
  const planNames: string[] = [];
  for await (const listed of sb.plans.list(project, { per_page: 1 })) planNames.push(listed.name);
  const firstOne = await sb.plans.list(project, { per_page: 1 }).toArray({ limit: 1 });

  const minted = await sb.tokens.create({ name: "from the consumer", abilities: ["team:view"] });
  const secret: string = minted.token;
  let requiredAbility: string | undefined;
  try {
    await createClient({ baseUrl: settings.baseUrl, token: settings.narrowToken }).tokens.list();
  } catch (error) {
    if (error instanceof PermissionError) requiredAbility = error.requiredAbility;
    else throw error;
  }
  let notFound: ErrorCode | (string & {}) | undefined;
  try {
    await sb.tokens.delete("999999999");
  } catch (error) {
    if (error instanceof NotFoundError && error instanceof SubBridgeError) notFound = error.code;
  }
  let invalidFields: string[] = [];
  try {
    await sb.plans.create(project, { ...plan, name: "" });
  } catch (error) {
    if (error instanceof ValidationError) invalidFields = Object.keys(error.fields ?? {});
  }
  // The path-string client underneath, for those who like openapi-fetch.
  const viaPath = await sb.GET("/v1/projects/{project}/plans/{plan}", { params: { path: { project, plan: first.data.id } } });

  const body = JSON.stringify({ id: "evt_01JD6YV4J8Q7Z3K2M9N5P0R1ST", type: "team.member.joined", created_at: "2026-01-01T00:00:00Z", api_version: "2026-07-28", project_id: null, data: { team: { id: "t_1" } } });
  const signature = await signWebhookPayload(body, "whsec_consumer");
  const event = await verifyWebhook(body, { "sb-signature": signature }, "whsec_consumer");
  const again2 = await verifyFromSubpath(body, new Headers({ "SB-Signature": signature }), "whsec_consumer");
  // The event is typed by its name: the check narrows data to the team.member.joined member's.
  const joinedTeam = event.type === "team.member.joined" ? event.data.team.id : null;
  const firstClaim = createMemoryDeduplicator().claim(event.id);
  const directory: SigningKeyDirectory = settings.signedDelivery.directory;
  const rfc9421 = await verifyWebhookMessageSignature(settings.signedDelivery.request, directory, { now: settings.signedDelivery.now });

  const valid = validateManifest(settings.validManifest);
  const manifest: ConnectorManifest | null = valid.valid ? valid.manifest : null;
  const invalid = validateManifest({ key: "Bad Key" });
  const problems: ManifestProblem[] = invalid.valid ? [] : invalid.errors;

  console.log(JSON.stringify({
    release: ping.release,
    bannerRelease: fromBanner.data.release,
    aborted,
    timeoutIsConnectionError: new TimeoutError(1, null) instanceof ConnectionError,
    teamId: team.id,
    connector: [installation.connector, installation.status],
    resourceActive: resource.active,
    samePlan: again.data.id === first.data.id,
    planDefaults: [first.data.billing_cycle_count, first.data.trial_days, first.data.access_codes_only],
    planNames: planNames.sort(),
    firstOne: firstOne.length,
    minted: /^sbt_(live|test)_/.test(secret),
    requiredAbility,
    notFound,
    invalidFields,
    viaPath: viaPath.data.id === first.data.id,
    eventType: event.type,
    joinedTeam,
    firstClaim,
    knownEventTypes: WEBHOOK_EVENT_TYPES.includes("subscription.created"),
    sameEvent: again2.id === event.id,
    messageSignatureKeyid: rfc9421.keyid,
    manifestKey: manifest?.key,
    problemPointers: problems.map((p) => p.pointer),
    schemaUrl: CONNECTOR_SCHEMA_URL,
  }));
}

/** Never called: the declarations must stay strict, so each of these lines fails to compile. */
export function mistakes(sb: ReturnType<typeof createClient>, project: string, plan: PlanCreate) {
  // @ts-expect-error a misspelled option (timeoutMs)
  void sb.plans.create(project, plan, { timeoutMS: 5 });
  // @ts-expect-error a misspelled option of the path-string client (params)
  void sb.GET("/v1/ping", { parms: {} });
  // @ts-expect-error reads take no idempotency key
  void sb.plans.retrieve(project, "plan", { idempotencyKey: "abc" });
  // @ts-expect-error a required field (billing_cycle) left out
  void sb.plans.create(project, { name: "x", price: { amount: 1, currency: "EUR" }, resources: [] });
  // @ts-expect-error not a method of the resource
  void sb.plans.remove(project, "plan");
  // @ts-expect-error not a path of the API
  void sb.GET("/v1/not-a-path");
  // @ts-expect-error timeoutMs is a number of milliseconds
  void sb.system.ping({ timeoutMs: "soon" });
  // @ts-expect-error a plan's name is a string
  const wrong: number = plan.name;
  // @ts-expect-error not an event of the spec
  const noSuchEvent: WebhookEventOf<"team.renamed"> | null = null;
  void wrong;
  void noSuchEvent;
}

main().catch((error) => {
  console.error(error);
  throw error;
});
`;

/**
 * A CommonJS program (a .cts file: CommonJS although the folder's package.json says module): the package
 * and its subpaths resolve to dist/cjs through the "require" condition, with their own declarations.
 */
const CJS_CONSUMER = `
import sdk = require("@subbridge/sdk");
import webhooks = require("@subbridge/sdk/webhooks");
import { validateManifest, type ConnectorManifest } from "@subbridge/sdk/connector";
import { cjsSettings as settings } from "./settings-cjs.cjs";

async function main() {
  const client = sdk.createClient({ baseUrl: settings.baseUrl, token: settings.token });
  const ping = await client.system.ping();
  let requiredAbility: string | undefined;
  try {
    await sdk.createClient({ baseUrl: settings.baseUrl, token: settings.narrowToken }).tokens.list();
  } catch (error) {
    if (error instanceof sdk.PermissionError && error instanceof sdk.SubBridgeError) requiredAbility = error.requiredAbility;
  }
  const body = JSON.stringify({ id: "evt_01JD6YV4J8Q7Z3K2M9N5P0R1ST", type: "team.member.joined", created_at: "2026-01-01T00:00:00Z", api_version: "2026-07-28", project_id: null, data: { team: { id: "t_1" } } });
  const signature = await webhooks.signWebhookPayload(body, "whsec_cjs");
  const event = await webhooks.verifyWebhook(body, { "sb-signature": signature }, "whsec_cjs");
  let refused: string | undefined;
  try {
    await webhooks.verifyWebhook(body, { "sb-signature": signature }, "whsec_other");
  } catch (error) {
    if (error instanceof sdk.WebhookVerificationError) refused = error.reason;
  }
  const valid = validateManifest(settings.validManifest);
  const manifest: ConnectorManifest | null = valid.valid ? valid.manifest : null;

  // @ts-expect-error not a path of the API
  void client.GET("/v1/not-a-path").catch(() => {});

  console.log(JSON.stringify({
    release: ping.data.release,
    requiredAbility,
    eventType: event.type,
    joinedTeam: event.type === "team.member.joined" ? event.data.team.id : null,
    refused,
    manifestKey: manifest?.key,
    resolved: [require.resolve("@subbridge/sdk"), require.resolve("@subbridge/sdk/webhooks"), require.resolve("@subbridge/sdk/connector")],
  }));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

/** A delivery signed as the server signs them (RFC 9421), with the directory that verifies it. */
async function signedDelivery() {
  const { db } = await testDatabase();
  const at = new Date("2026-11-25T10:00:00Z");
  const key = await activeSigningKey(db, TEST_APP_KEY, at);
  const body = '{"id":"evt_01JD6YV4J8Q7Z3K2M9N5P0R1ST","type":"team.member.joined"}';
  const base = { "content-type": "application/json", "sb-event-id": "01JD6YV4J8Q7Z3K2M9N5P0R1ST", "sb-event-name": "team.member.joined" };
  const url = "https://hooks.example.com/in";
  const headers = { ...base, ...messageSignatureHeaders(key, { method: "POST", url: new URL(url), body, headers: base, at }) };
  return { request: { method: "POST", url, headers, body }, directory: await signingKeyDirectory(db), now: at.getTime() / 1000 };
}

// Strict as a careful third party sets it: exactOptionalPropertyTypes too, and no skipLibCheck.
const TSCONFIG_BASE = {
  target: "ES2022",
  lib: ["ES2022", "DOM"],
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: false,
  types: [] as string[],
};

describe("sdk package (npm pack, install, consume)", function () {
  this.timeout(180_000);
  this.slow(60_000);

  let work: string;
  let consumer: string;
  let tarballPath: string;
  let api: RunningApi;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "subbridge-sdk-package-"));
    consumer = join(work, "consumer");
    mkdirSync(consumer);
    api = await startApi();
    // npm pack runs the prepack script, which builds dist from the current sources.
    succeed(NPM, ["pack", "--pack-destination", work, "--silent"], SDK);
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    assert.ok(tarball, "npm pack wrote no tarball");
    tarballPath = join(work, tarball);
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "sdk-consumer", private: true, type: "module" }));
    succeed(
      NPM,
      ["install", join(work, tarball), "typescript@5.9.3", "@types/node@20", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
      consumer,
    );
  });

  after(async () => {
    await api?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("ships dist, the README and the MIT license only, with openapi-fetch and structured-headers as its dependencies", () => {
    const installed = JSON.parse(readFileSync(join(consumer, "node_modules/@subbridge/sdk/package.json"), "utf8"));
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    assert.equal(installed.version, root.version);
    assert.deepEqual(Object.keys(installed.dependencies), ["openapi-fetch", "structured-headers"]);
    assert.deepEqual(readdirSync(join(consumer, "node_modules/@subbridge/sdk")).sort(), ["LICENSE", "README.md", "dist", "package.json"]);
    assert.equal(installed.license, "MIT", "a third party may use the package");
    assert.match(readFileSync(join(consumer, "node_modules/@subbridge/sdk/LICENSE"), "utf8"), /^MIT License/);
    const packages = readdirSync(join(consumer, "node_modules")).filter((name) => !name.startsWith("."));
    assert.ok(!packages.includes("ajv") && !packages.includes("ajv-formats"), `installed: ${packages.join(", ")}`);
  });

  it("leaves dist alone when built again from unchanged inputs (a server or a pack reading it meanwhile keeps its files)", () => {
    const before = statSync(join(SDK, "dist/index.js"));
    const output = succeed(process.execPath, [join(SDK, "scripts/build.mjs")], SDK);
    assert.match(output, /dist\/ is current \(inputs unchanged\)/);
    const after = statSync(join(SDK, "dist/index.js"));
    assert.equal(after.ino, before.ino);
    assert.equal(after.mtimeMs, before.mtimeMs);
  });

  it("typechecks a consumer under nodenext and bundler resolution (DOM or Node types) and runs it against the API", async () => {
    const creator = await createTestCreator({ label: "sdk-consumer", projects: 1 });
    const narrow = await tokenFor(creator, ["team:view"]);
    const validManifest = readFileSync(join(ROOT, "connectors/discord/connector.json"), "utf8");
    const bot = await newTelegramBot("consumer");
    const settings = {
      baseUrl: api.url,
      token: creator.token,
      narrowToken: narrow.token,
      botToken: bot.token,
      validManifest,
      signedDelivery: await signedDelivery(),
    };
    writeFileSync(join(consumer, "settings.ts"), `export const settings = ${JSON.stringify(settings, null, 2)};\n`);
    writeFileSync(join(consumer, "consumer.ts"), CONSUMER);
    const tsconfig = (options: Record<string, unknown>) =>
      JSON.stringify({ compilerOptions: { ...TSCONFIG_BASE, ...options }, files: ["consumer.ts"] });
    writeFileSync(join(consumer, "tsconfig.nodenext.json"), tsconfig({ module: "nodenext", moduleResolution: "nodenext", outDir: "out" }));
    writeFileSync(join(consumer, "tsconfig.bundler.json"), tsconfig({ module: "preserve", moduleResolution: "bundler", noEmit: true }));
    // A Node program without the DOM library: the declarations must not need it.
    writeFileSync(
      join(consumer, "tsconfig.node-types.json"),
      tsconfig({ module: "nodenext", moduleResolution: "nodenext", lib: ["ES2022"], types: ["node"], noEmit: true }),
    );
    const tsc = join(consumer, "node_modules/typescript/bin/tsc");
    succeed(process.execPath, [tsc, "-p", "tsconfig.bundler.json"], consumer);
    succeed(process.execPath, [tsc, "-p", "tsconfig.node-types.json"], consumer);
    succeed(process.execPath, [tsc, "-p", "tsconfig.nodenext.json"], consumer);

    const result = JSON.parse(await runConsumer(consumer, "out/consumer.js"));
    assert.deepEqual(result, {
      release: root().version,
      bannerRelease: root().version,
      aborted: "REQUEST_ABORTED",
      timeoutIsConnectionError: true,
      teamId: creator.teamId,
      connector: ["telegram", "active"],
      resourceActive: true,
      samePlan: true,
      planDefaults: [1, 0, false],
      planNames: ["Monthly", "Yearly"],
      firstOne: 1,
      minted: true,
      requiredAbility: "token:view-any",
      notFound: "RESOURCE_NOT_FOUND",
      invalidFields: ["name"],
      viaPath: true,
      eventType: "team.member.joined",
      joinedTeam: "t_1",
      firstClaim: true,
      knownEventTypes: true,
      sameEvent: true,
      messageSignatureKeyid: (await signedDelivery()).directory.keys[0]!.kid,
      manifestKey: "discord",
      problemPointers: result.problemPointers,
      schemaUrl: "https://subbridge.dev/schemas/connector.schema.json",
    });
    assert.ok(result.problemPointers.includes("/key") && result.problemPointers.includes("/vendor"), String(result.problemPointers));
  });

  it("shows an operation's docs in an editor's hover over a resource method (the installed declarations)", () => {
    // The consumer's own TypeScript, as an editor runs it: the language service's quick info.
    const ts = createRequire(join(consumer, "package.json"))("typescript") as typeof import("typescript");
    const file = join(consumer, "consumer.ts");
    const text = readFileSync(file, "utf8");
    const config = ts.getParsedCommandLineOfConfigFile(
      join(consumer, "tsconfig.nodenext.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, "\n")),
      },
    );
    const options = config!.options;
    const host: import("typescript").LanguageServiceHost = {
      getCompilationSettings: () => options,
      getScriptFileNames: () => [file],
      getScriptVersion: () => "1",
      getScriptSnapshot: (name) => (ts.sys.fileExists(name) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(name)!) : undefined),
      getCurrentDirectory: () => consumer,
      getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    };
    const service = ts.createLanguageService(host);
    const at = text.indexOf("sb.plans.create(project, plan,") + "sb.plans.".length;
    const info = service.getQuickInfoAtPosition(file, at);
    assert.ok(info, "quick info at sb.plans.create");
    const signature = ts.displayPartsToString(info.displayParts);
    const docs = ts.displayPartsToString(info.documentation);
    const tags = (info.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`).join("\n");
    assert.match(signature, /create\(project: string, body: PlanCreate, options\?: WriteRequestOptions\): Promise<PlanResponse>/);
    assert.match(docs, /^Create a plan\n\nCreates a draft plan granting the listed resources/);
    assert.match(tags, /@remarks Requires the `project-subscription-plan:create` ability\./);
    assert.match(tags, /@see .*reference#tag\/plans\/POST\/v1\/projects\/\{project\}\/plans/);
  });

  it("typechecks a CommonJS consumer that requires the package and its subpaths (nodenext, strict) and runs it against the API", async () => {
    const creator = await createTestCreator({ label: "sdk-cjs-consumer" });
    const validManifest = readFileSync(join(ROOT, "connectors/discord/connector.json"), "utf8");
    const narrow = await tokenFor(creator, ["team:view"]);
    const settings = { baseUrl: api.url, token: creator.token, narrowToken: narrow.token, validManifest };
    writeFileSync(join(consumer, "settings-cjs.cts"), `export const cjsSettings = ${JSON.stringify(settings, null, 2)};\n`);
    writeFileSync(join(consumer, "consumer-cjs.cts"), CJS_CONSUMER);
    writeFileSync(
      join(consumer, "tsconfig.cjs.json"),
      JSON.stringify({
        compilerOptions: { ...TSCONFIG_BASE, module: "nodenext", moduleResolution: "nodenext", types: ["node"], outDir: "out" },
        files: ["consumer-cjs.cts"],
      }),
    );
    succeed(process.execPath, [join(consumer, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.cjs.json"], consumer);
    assert.match(readFileSync(join(consumer, "out/consumer-cjs.cjs"), "utf8"), /require\("@subbridge\/sdk"\)/);

    const result = JSON.parse(await runConsumer(consumer, "out/consumer-cjs.cjs"));
    const cjs = join(consumer, "node_modules/@subbridge/sdk/dist/cjs");
    assert.deepEqual(result, {
      release: root().version,
      requiredAbility: "token:view-any",
      eventType: "team.member.joined",
      joinedTeam: "t_1",
      refused: "signature_mismatch",
      manifestKey: "discord",
      resolved: [join(cjs, "index.js"), join(cjs, "webhooks.js"), join(cjs, "connector/index.js")],
    });
  });

  it("runs subbridge-connector validate through npx", () => {
    const valid = run(NPX, ["--no-install", "subbridge-connector", "validate", join(ROOT, "connectors/telegram/connector.json")], consumer);
    assert.equal(valid.status, 0, valid.stderr);
    assert.match(valid.stdout, new RegExp(`✔ .*is valid and loads as the server loads it \\(key telegram, version ${TELEGRAM_VERSION}\\)`));
    const broken = join(ROOT, "test/fixtures/manifests/invalid/install-scopes-empty.json");
    const invalid = run(NPX, ["--no-install", "subbridge-connector", "validate", broken], consumer);
    assert.equal(invalid.status, 1, invalid.stderr);
    assert.match(invalid.stdout, /✖ .*install-scopes-empty\.json: \/install\/scopes: install\.scopes must list at least one value/);
    const json = run(NPX, ["--no-install", "subbridge-connector", "validate", broken, "--json"], consumer);
    assert.equal(json.status, 1);
    assert.deepEqual(
      JSON.parse(json.stdout).errors.map((e: { pointer: string }) => e.pointer),
      ["/install/scopes"],
    );
    const help = run(NPX, ["--no-install", "subbridge-connector", "--help"], consumer);
    assert.equal(help.status, 0);
  });

  it("runs subbridge-connector validate through npx -p from a folder without the SDK, as the README shows", () => {
    const elsewhere = join(work, "elsewhere");
    mkdirSync(elsewhere);
    const manifest = join(ROOT, "connectors/telegram/connector.json");
    // The bare command name is no package npx can find outside a project that has the SDK.
    const bare = run(NPX, ["--no-install", "subbridge-connector", "validate", manifest], elsewhere);
    assert.notEqual(bare.status, 0, bare.stdout);
    // `npx -p @subbridge/sdk ...`, with the packed tarball standing for the registry's package.
    const named = run(NPX, ["--yes", "-p", tarballPath, "subbridge-connector", "validate", manifest], elsewhere, {
      npm_config_prefer_offline: "true",
    });
    assert.equal(named.status, 0, named.stderr);
    assert.match(named.stdout, new RegExp(`✔ .*is valid and loads as the server loads it \\(key telegram, version ${TELEGRAM_VERSION}\\)`));
  });

  it("passes the publish check on the tarball: npm publish --dry-run, publint strict, are-the-types-wrong (profile node16: ESM and CommonJS)", () => {
    const result = run(process.execPath, [join(SDK, "scripts/publish-check.mjs"), tarballPath], ROOT);
    const output = `${result.stdout}\n${result.stderr}`;
    assert.equal(result.status, 0, output);
    assert.match(result.stdout, /publint --strict\nno problem\n/);
    assert.match(result.stdout, /node16 \(from CJS\): 🟢 \(CJS\)/);
    assert.match(output, /with tag latest and public access \(dry-run\)/);
  });
});

/** Runs a compiled consumer; asynchronously, as the server it calls runs in this process. */
function runConsumer(cwd: string, file: string): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [file], { cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${file} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

function root(): { version: string } {
  return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
}
