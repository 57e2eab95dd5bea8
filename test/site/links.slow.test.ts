// Every link the service serves leads somewhere (issue 32): `npm start` is crawled from its front
// pages and discovery documents across all six hosts. HTML attributes (href, src, action), URLs in
// JSON documents and in text (llms.txt, markdown) are followed when they name one of the service's
// own hosts; a fragment must name an element of the page it points into. A link is dead when it
// answers 404 or 410, a 5xx, or 405 without Allow; 400 and 401 mean the address exists but wants
// parameters or a credential (an OAuth endpoint, a protected operation). Outside links are
// collected, never fetched (no network in tests).
import assert from "node:assert/strict";
import { freePort, startNpm, tempDir, type StartedProcess } from "../helpers/processes.ts";

const SURFACES = ["API", "DOCS", "MCP", "SITE", "PORTAL", "AUTH"] as const;
const LIMIT = 1500;

/** Pages whose fragments are routes of a client-side app (Scalar), not element ids. */
const CLIENT_ROUTED = ["/reference"];

function linksOf(body: string, type: string, base: string): string[] {
  const found: string[] = [];
  if (type.includes("html")) {
    for (const m of body.matchAll(/\s(?:href|src|action)="([^"]+)"/g)) found.push(m[1]!.replaceAll("&amp;", "&"));
  } else if (type.includes("json")) {
    const walk = (value: unknown): void => {
      if (typeof value === "string" && /^https?:\/\//.test(value)) found.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    try {
      walk(JSON.parse(body));
    } catch {
      // Not JSON after all: nothing to follow.
    }
  } else if (type.includes("text/plain") || type.includes("markdown")) {
    for (const m of body.matchAll(/\]\(<?([^)\s>]+)>?\)/g)) found.push(m[1]!);
    for (const m of body.matchAll(/https?:\/\/[^\s)<>"'`\]]+/g)) found.push(m[0]!.replace(/[.,;:]+$/, ""));
  }
  const urls: string[] = [];
  for (const link of found) {
    if (/^(mailto:|tel:|data:|javascript:|vscode:|cursor:)/.test(link) || link.includes("{") || link.includes("%7B")) continue;
    try {
      urls.push(new URL(link, base).toString());
    } catch {
      urls.push(`invalid:${link}`);
    }
  }
  return urls;
}

describe("links served by npm start (crawl)", function () {
  this.timeout(600_000);
  let server: StartedProcess;
  const origins: Record<string, string> = {};

  before(async () => {
    const env: Record<string, string> = { DATA_DIR: tempDir("links"), LOG_LEVEL: "warn" };
    for (const name of SURFACES) {
      const port = await freePort();
      env[`${name}_PORT`] = String(port);
      origins[name] = `http://localhost:${port}`;
    }
    // The dashboard is an app of scripts (its own walk tests it): it only needs a port of its own here.
    env.DASHBOARD_PORT = String(await freePort());
    server = await startNpm(env, /Reference\s+http:\/\/localhost:\d+/);
  });
  after(() => server?.stop());

  it("finds no dead link on any host", async () => {
    const own = new Set(Object.values(origins));
    const seeds = [
      `${origins.SITE}/`,
      `${origins.SITE}/llms.txt`,
      `${origins.SITE}/.well-known/api-catalog`,
      `${origins.DOCS}/`,
      `${origins.DOCS}/openapi.json`,
      `${origins.API}/`,
      `${origins.API}/openapi.json`,
      `${origins.AUTH}/.well-known/oauth-authorization-server`,
      `${origins.AUTH}/sign-in`,
      `${origins.MCP}/.well-known/oauth-protected-resource`,
      `${origins.MCP}/.well-known/mcp/server-card.json`,
    ];
    const queue = [...seeds];
    const referrers = new Map<string, string>(seeds.map((s) => [s, "(seed)"]));
    const pages = new Map<string, { status: number; ids: Set<string> | null }>();
    const dead: string[] = [];
    const external = new Set<string>();
    while (queue.length > 0 && pages.size < LIMIT) {
      const url = queue.shift()!;
      const target = new URL(url);
      const page = target.origin + target.pathname + target.search;
      if (!pages.has(page)) {
        const res = await fetch(page, { redirect: "follow", headers: { accept: "text/html, application/json;q=0.9, */*;q=0.8" } });
        const type = res.headers.get("content-type") ?? "";
        const body = await res.text();
        const alive = res.status < 500 && res.status !== 404 && res.status !== 410 && (res.status !== 405 || res.headers.get("allow") !== null);
        if (!alive) dead.push(`${res.status} ${page} (linked from ${referrers.get(url)})`);
        const ids = type.includes("html") ? new Set([...body.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!)) : null;
        pages.set(page, { status: res.status, ids });
        if (res.ok) {
          for (const link of linksOf(body, type, res.url)) {
            if (link.startsWith("invalid:")) {
              dead.push(`unparseable ${link.slice(8)} (in ${page})`);
              continue;
            }
            const next = new URL(link);
            if (!own.has(next.origin)) {
              external.add(next.origin + next.pathname);
              continue;
            }
            if (!referrers.has(link)) {
              referrers.set(link, page);
              queue.push(link);
            }
          }
        }
      }
      let fragment = target.hash.slice(1);
      try {
        fragment = decodeURIComponent(fragment);
      } catch {
        dead.push(`malformed fragment #${fragment} (linked from ${referrers.get(url)})`);
      }
      const ids = pages.get(page)!.ids;
      if (fragment && ids && !CLIENT_ROUTED.includes(target.pathname) && !ids.has(fragment)) {
        dead.push(`#${fragment} is no element of ${page} (linked from ${referrers.get(url)})`);
      }
    }
    assert.deepEqual([...new Set(dead)], [], `dead links (of ${pages.size} crawled; ${external.size} outside links not fetched)`);
    assert.ok(pages.size > 50, `crawled ${pages.size} pages`);
    assert.ok(pages.size < LIMIT, "the crawl ended on its own");
  });
});
