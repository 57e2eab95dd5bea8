// The dashboard is a client of the public SDK (issue 44): its code imports React and its UI
// libraries, @subbridge/sdk and its own files, nothing of the server (src/, generated/); every
// data call is a resource method the SDK's operation table offers, never a hand-made request to
// the API; the only other fetches are the boot document and the authorization host's token endpoint.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { RESOURCE_OPERATIONS } from "../../generated/sdk-resources.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DASHBOARD = join(ROOT, "dashboard", "src");
const PACKAGES = new Set([
  "react",
  "react-dom",
  "react-dom/client",
  "react/jsx-runtime",
  "@tanstack/react-router",
  "@tanstack/react-query",
  "react-aria-components",
  "qrcode-generator",
  "@subbridge/sdk",
]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

const sources = filesUnder(DASHBOARD).map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, "utf8") }));
const offered = new Set(Object.values(RESOURCE_OPERATIONS).map((op) => `${op.resource}.${op.method}`));

/** The problems of one source: imports beyond the allowed packages and its own folder, calls the SDK does not offer, raw requests. */
export function dashboardProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const [, target] of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
    if (target!.startsWith(".")) {
      if (target!.includes("../../") || /(^|\/)(src|generated)\//.test(target!.replace(/^\.\.?\//, "")))
        problems.push(`${file} imports ${target} (outside dashboard/src)`);
    } else if (!PACKAGES.has(target!)) problems.push(`${file} imports ${target}, which is not the SDK or the dashboard's UI libraries`);
  }
  for (const [, resource, method] of text.matchAll(/\bsb\.([a-zA-Z]+)\.([a-zA-Z]+)\(/g)) {
    if (!offered.has(`${resource}.${method}`)) problems.push(`${file} calls sb.${resource}.${method}, which the SDK does not offer`);
  }
  if (/\bsb\.(raw|GET|POST|PUT|PATCH|DELETE)\b/.test(text)) problems.push(`${file} makes a path request; use the SDK's resource methods`);
  const fetches = [...text.matchAll(/\bfetch\(\s*([^,)]+)/g)].map((m) => m[1]!.trim());
  for (const target of fetches) {
    const allowed = target === '"/config.json"' || target.startsWith("`${config.authUrl}/oauth/token`") || target.startsWith("await authorised(");
    if (!allowed) problems.push(`${file} fetches ${target} itself`);
  }
  return problems;
}

describe("architecture: the dashboard is a client of the public SDK", () => {
  it("imports only the SDK, its UI libraries and its own files, and calls only what the SDK offers", () => {
    assert.ok(sources.length > 5, "the dashboard's sources are found");
    assert.deepEqual(
      sources.flatMap(({ file, text }) => dashboardProblems(file, text)),
      [],
    );
  });

  it("catches a server import, an operation the SDK lacks, a path request and a raw fetch", () => {
    assert.equal(dashboardProblems("x.tsx", `import { db } from "../../../src/db/database.ts";`).length, 1);
    assert.equal(dashboardProblems("x.tsx", `import spec from "../../generated/openapi.json";`).length, 1);
    assert.equal(dashboardProblems("x.tsx", `import axios from "axios";`).length, 1);
    assert.equal(dashboardProblems("x.tsx", `await sb.plans.refundEverything(project);`).length, 1);
    assert.equal(dashboardProblems("x.tsx", `await sb.GET("/v1/projects");`).length, 1);
    assert.equal(dashboardProblems("x.tsx", "await fetch(`${config.apiUrl}/v1/projects`);").length, 1);
    assert.deepEqual(dashboardProblems("x.tsx", `import { createClient } from "@subbridge/sdk";\nawait sb.plans.publish(project, plan);`), []);
  });
});
