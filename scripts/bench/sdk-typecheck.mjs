#!/usr/bin/env node
// What the SDK's types cost a consumer's compiler: a fixed program of about 80 lines written with
// the resource methods, the same program with the path-string client, a file that only creates a
// client, and an empty file, each typechecked with `tsc --extendedDiagnostics` as a strict consumer
// compiles it (nodenext, exactOptionalPropertyTypes), with skipLibCheck as `tsc --init` sets it and
// without (then the declarations of the package, openapi-fetch and lib.dom are checked too), against
// the built package (sdk/dist, built first when missing; SDK_DIR=<another build's package folder>
// measures that one and writes nothing).
// ONLY=empty,paths measures only those programs (an SDK before the resource methods has no others).
// Writes scripts/bench/results/sdk-typecheck.json and the "Last run" line of docs/performance.md. Usage: node scripts/bench/sdk-typecheck.mjs
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SDK = resolve(process.env.SDK_DIR ?? join(ROOT, "sdk"));
const OUT = join(ROOT, "scripts/bench/results/sdk-typecheck.json");
const TSC = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
const RUNS = Number(process.env.RUNS ?? 3);

/** The shared part of both programs: the error handling of the program. */
const handleErrors = `
export function explain(error: unknown): string {
  if (error instanceof PermissionError && error.code === "TOKEN_MISSING_ABILITY") return \`needs \${error.requiredAbility}\`;
  if (error instanceof ValidationError) return Object.entries(error.fields ?? {}).map(([field, messages]) => \`\${field}: \${messages.join(", ")}\`).join("; ");
  if (error instanceof NotFoundError) return \`not found (\${error.requestId})\`;
  if (error instanceof RateLimitError) return \`retry in \${error.retryAfter} s\`;
  if (error instanceof SubBridgeError) return \`\${error.code}: \${error.message}\`;
  return String(error);
}
`;

const PROGRAMS = {
  empty: `export {};\n`,
  client: `import { createClient } from "@subbridge/sdk";\n\nexport const sb = createClient({ baseUrl: "http://localhost:4000/v1" });\n`,
  resources: `import { createClient, NotFoundError, PermissionError, RateLimitError, SubBridgeError, ValidationError } from "@subbridge/sdk";

const sb = createClient({ baseUrl: "http://localhost:4000/v1", token: "sbt_live_1_secret", timeoutMs: 10_000 });
${handleErrors}
export async function setUp(botToken: string, chatId: string) {
  const { data: team } = await sb.teams.retrieveCurrent();
  console.log(team.name);

  const projects = await sb.projects.list({ per_page: 50 });
  let project = projects.data.find((p) => p.name === "Book club");
  if (!project) project = (await sb.projects.create({ name: "Book club" }, { idempotencyKey: "project-book-club" })).data;

  const installed = await sb.projectConnectors.install(project.id, "telegram", { fields: { bot_token: botToken } }, { idempotencyKey: \`telegram-\${project.id}\` });
  console.log(installed.data.status, installed.data.bot_url);

  const { data: resource } = await sb.resources.create(project.id, { kind: "telegram_group", title: "Readers", platform_ref: chatId, connector: "telegram" });

  const { data: plan } = await sb.plans.create(
    project.id,
    { name: "Monthly", price: { amount: 900, currency: "EUR" }, billing_cycle: "month", resources: [resource.id] },
    { idempotencyKey: \`plan-monthly-\${project.id}\` },
  );
  const published = await sb.plans.publish(project.id, plan.id);
  console.log(published.data.status);

  const updated = await sb.plans.update(project.id, plan.id, { description: "Monthly access to the readers' group" });
  console.log(updated.data.description);
  return { project, plan: published.data, resource };
}

export async function report(projectId: string) {
  let total = 0;
  for await (const plan of sb.plans.list(projectId, { per_page: 100 })) {
    total += plan.price.amount;
    console.log(plan.name, plan.status);
  }
  const members = await sb.members.list(projectId).toArray({ limit: 500 });
  for (const member of members) console.log(member.id);
  for await (const page of sb.subscriptions.list({ per_page: 100 }).pages()) console.log(page.meta.current_page, page.data.length);
  const first = await sb.resources.list(projectId);
  console.log(first.meta.total, total);
  const tokens = await sb.tokens.list({ per_page: 10 }, { timeoutMs: 5_000 });
  for (const token of tokens.data) console.log(token.name, token.abilities.join(" "));
}

export async function tidy(projectId: string, planId: string, resourceId: string, signal: AbortSignal) {
  try {
    await sb.plans.archive(projectId, planId, { signal });
    await sb.resources.delete(projectId, resourceId, { idempotencyKey: \`delete-\${resourceId}\` });
    await sb.projectConnectors.uninstall(projectId, "telegram");
  } catch (error) {
    console.error(explain(error));
  }
  const minted = await sb.tokens.create({ name: "Reporting", abilities: ["project:view-any"] });
  console.log(minted.token);
  await sb.tokens.delete(minted.data.id);
  const hook = await sb.webhookEndpoints.create({ name: "Hooks", url: "https://example.com/hooks", events: ["plan.created"] });
  console.log(hook.data.id);
  const deliveries = await sb.webhookDeliveries.list(hook.data.id, { per_page: 5 });
  console.log(deliveries.data.length);
  const { data: ping } = await sb.system.ping();
  console.log(ping.status);
}
`,
  paths: `import { createClient, NotFoundError, PermissionError, RateLimitError, SubBridgeError, ValidationError } from "@subbridge/sdk";

const sb = createClient({ baseUrl: "http://localhost:4000/v1", token: "sbt_live_1_secret", timeoutMs: 10_000 });
${handleErrors}
export async function setUp(botToken: string, chatId: string) {
  const { data: team } = await sb.GET("/v1/teams/current");
  console.log(team.name);

  const projects = await sb.GET("/v1/projects", { params: { query: { per_page: 50 } } });
  let project = projects.data.find((p) => p.name === "Book club");
  if (!project) project = (await sb.POST("/v1/projects", { body: { name: "Book club" }, params: { header: { "Idempotency-Key": "project-book-club" } } })).data;

  const installed = await sb.POST("/v1/projects/{project}/connectors/{connector}", {
    params: { path: { project: project.id, connector: "telegram" }, header: { "Idempotency-Key": \`telegram-\${project.id}\` } },
    body: { fields: { bot_token: botToken } },
  });
  console.log(installed.data.status, installed.data.bot_url);

  const { data: resource } = await sb.POST("/v1/projects/{project}/resources", {
    params: { path: { project: project.id } },
    body: { kind: "telegram_group", title: "Readers", platform_ref: chatId, connector: "telegram" },
  });

  const { data: plan } = await sb.POST("/v1/projects/{project}/plans", {
    params: { path: { project: project.id }, header: { "Idempotency-Key": \`plan-monthly-\${project.id}\` } },
    body: { name: "Monthly", price: { amount: 900, currency: "EUR" }, billing_cycle: "month", resources: [resource.id] },
  });
  const published = await sb.POST("/v1/projects/{project}/plans/{plan}/publish", { params: { path: { project: project.id, plan: plan.id } } });
  console.log(published.data.status);

  const updated = await sb.PATCH("/v1/projects/{project}/plans/{plan}", {
    params: { path: { project: project.id, plan: plan.id } },
    body: { description: "Monthly access to the readers' group" },
  });
  console.log(updated.data.description);
  return { project, plan: published.data, resource };
}

export async function report(projectId: string) {
  let total = 0;
  for await (const plan of sb.paginate("/v1/projects/{project}/plans", { params: { path: { project: projectId }, query: { per_page: 100 } } })) {
    total += plan.price.amount;
    console.log(plan.name, plan.status);
  }
  for await (const member of sb.paginate("/v1/projects/{project}/members", { params: { path: { project: projectId } } })) console.log(member.id);
  for await (const page of sb.pages("/v1/subscriptions", { params: { query: { per_page: 100 } } })) console.log(page.meta.current_page, page.data.length);
  const first = await sb.GET("/v1/projects/{project}/resources", { params: { path: { project: projectId } } });
  console.log(first.meta.total, total);
  const tokens = await sb.GET("/v1/tokens", { params: { query: { per_page: 10 } }, timeoutMs: 5_000 });
  for (const token of tokens.data) console.log(token.name, token.abilities.join(" "));
}

export async function tidy(projectId: string, planId: string, resourceId: string, signal: AbortSignal) {
  try {
    await sb.POST("/v1/projects/{project}/plans/{plan}/archive", { params: { path: { project: projectId, plan: planId } }, signal });
    await sb.DELETE("/v1/projects/{project}/resources/{resource}", {
      params: { path: { project: projectId, resource: resourceId }, header: { "Idempotency-Key": \`delete-\${resourceId}\` } },
    });
    await sb.DELETE("/v1/projects/{project}/connectors/{connector}", { params: { path: { project: projectId, connector: "telegram" } } });
  } catch (error) {
    console.error(explain(error));
  }
  const minted = await sb.POST("/v1/tokens", { body: { name: "Reporting", abilities: ["project:view-any"] } });
  console.log(minted.token);
  await sb.DELETE("/v1/tokens/{token_id}", { params: { path: { token_id: minted.data.id } } });
  const hook = await sb.POST("/v1/webhook-endpoints", { body: { name: "Hooks", url: "https://example.com/hooks", events: ["plan.created"] } });
  console.log(hook.data.id);
  const deliveries = await sb.GET("/v1/webhook-endpoints/{webhook_endpoint}/deliveries", { params: { path: { webhook_endpoint: hook.data.id }, query: { per_page: 5 } } });
  console.log(deliveries.data.length);
  const { data: ping } = await sb.GET("/v1/ping");
  console.log(ping.status);
}
`,
};

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022", "DOM"],
    types: [],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  },
};

/** The figures of --extendedDiagnostics we keep. */
function diagnostics(text) {
  const figure = (label) => {
    const match = new RegExp(`^${label}:\\s+([\\d.]+)`, "m").exec(text);
    return match ? Number(match[1]) : null;
  };
  return {
    instantiations: figure("Instantiations"),
    types: figure("Types"),
    check_time_s: figure("Check time"),
    total_time_s: figure("Total time"),
    memory_kb: figure("Memory used"),
  };
}

/** Replaces the "**Last run**" paragraph of docs/performance.md's section on this benchmark with these figures. */
function writePerformanceLine(results) {
  const file = join(ROOT, "docs/performance.md");
  const text = readFileSync(file, "utf8");
  const section = text.indexOf("## SDK type-check cost");
  const start = text.indexOf("**Last run**", section);
  const end = text.indexOf("\n\n", start);
  if (section < 0 || start < 0 || end < 0) throw new Error("docs/performance.md has no **Last run** paragraph under ## SDK type-check cost");
  const count = (n) => n.toLocaleString("en-US");
  const figures = Object.entries(results).map(([name, r]) => `${name} ${count(r.skipLibCheck.instantiations)} / ${count(r.libCheck.instantiations)}`);
  const paragraph = `**Last run** (written by the script): instantiations with / without \`skipLibCheck\`: ${figures.join("; ")}.`;
  // Wrapped at 130 columns, as the rest of the file.
  const lines = [];
  for (const word of paragraph.split(" ")) {
    if (lines.length && (lines.at(-1) + " " + word).length <= 130) lines[lines.length - 1] += " " + word;
    else lines.push(word);
  }
  writeFileSync(file, text.slice(0, start) + lines.join("\n") + text.slice(end));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

if (!process.env.SDK_DIR && !existsSync(join(SDK, "dist/index.d.ts")))
  execFileSync(process.execPath, [join(SDK, "scripts/build.mjs")], { stdio: "inherit" });

const consumer = mkdtempSync(join(tmpdir(), "sdk-typecheck-"));
const results = {};
try {
  mkdirSync(join(consumer, "node_modules/@subbridge"), { recursive: true });
  symlinkSync(SDK, join(consumer, "node_modules/@subbridge/sdk"), "dir");
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }) + "\n");
  const only = process.env.ONLY?.split(",");
  for (const [name, source] of Object.entries(PROGRAMS).filter(([name]) => !only || only.includes(name))) {
    const folder = join(consumer, name);
    mkdirSync(folder);
    writeFileSync(join(folder, "program.ts"), source);
    results[name] = { lines: source.split("\n").length };
    for (const [mode, skipLibCheck] of [
      ["skipLibCheck", true],
      ["libCheck", false],
    ]) {
      const tsconfig = join(folder, `tsconfig.${mode}.json`);
      writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { ...TSCONFIG.compilerOptions, skipLibCheck }, files: ["program.ts"] }));
      const runs = [];
      for (let run = 0; run < RUNS; run++) {
        let output;
        try {
          output = execFileSync(process.execPath, [TSC, "-p", tsconfig, "--extendedDiagnostics"], { encoding: "utf8" });
        } catch (error) {
          throw new Error(`the ${name} program does not compile:\n${error.stdout}`);
        }
        runs.push(diagnostics(output));
      }
      results[name][mode] = {
        instantiations: runs[0].instantiations,
        types: runs[0].types,
        check_time_s: median(runs.map((r) => r.check_time_s)),
        total_time_s: median(runs.map((r) => r.total_time_s)),
        memory_kb: median(runs.map((r) => r.memory_kb)),
      };
    }
  }
} finally {
  rmSync(consumer, { recursive: true, force: true });
}

const written = {
  $comment: `written by scripts/bench/sdk-typecheck.mjs (tsc --extendedDiagnostics, strict nodenext consumer with exactOptionalPropertyTypes, with and without skipLibCheck; times are the median of ${RUNS} runs)`,
  sdk: process.env.SDK_DIR ? SDK : "sdk/dist",
  node: process.version,
  programs: results,
};
if (!process.env.SDK_DIR && !process.env.ONLY) {
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify(written, null, 2) + "\n");
  writePerformanceLine(results);
}
for (const [name, r] of Object.entries(results))
  for (const mode of ["skipLibCheck", "libCheck"])
    console.log(
      `${name.padEnd(10)} ${mode.padEnd(13)} ${String(r.lines).padStart(4)} lines ${String(r[mode].instantiations).padStart(8)} instantiations ${String(r[mode].types).padStart(7)} types  check ${r[mode].check_time_s} s  total ${r[mode].total_time_s} s`,
    );
if (!process.env.SDK_DIR && !process.env.ONLY) console.log(`written to ${OUT.slice(ROOT.length + 1)}`);
