// What the hostile route properties run against: the API with the Stripe twin (its Connect endpoint
// and the tier billing endpoint), a project with Telegram installed, a published plan and a Stripe
// method, and the portal with a member signed in through the bot (cookies and a CSRF token) beside
// a guest. Also the invariants every answer keeps: no 5xx, no stack trace, the error envelope from
// the API, and a page (or the parser's envelope) from the portal.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { setUpSimulatedBilling } from "../../src/modules/billing/stripe-setup.ts";
import { startStripeTwin, type StripeTwin } from "../../src/simulators/stripe/index.ts";
import type { StripePayments } from "../../src/modules/payments/stripe/stripe-payments.ts";
import { createTestCreator } from "../helpers/fixtures.ts";
import type { FormBrowser } from "../helpers/form-browser.ts";
import { ApiClient } from "../helpers/http.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";
import type { ApiSuite } from "../helpers/suite.ts";
import { connectStripeMethod } from "../modules/payments/methods.ts";
import { PortalBrowser, projectWithPlan, signedInAs, startPortal, type PortalProjectFixture } from "../portal/support.ts";
import { checkEnvelope } from "./invariants.ts";
import { closeConnections, header, type HttpAnswer } from "./raw-http.ts";
import type { RouteCase } from "./route-cases.ts";
import { GENEROUS_BUDGET } from "./run.ts";

export interface RouteWorld {
  api: RunningApi;
  twin: StripeTwin;
  stripe: StripePayments;
  portal: { url: string; close(): Promise<void> };
  fixture: PortalProjectFixture;
  methodId: string;
  /** A member signed in to the portal, and a guest; each with a CSRF token for its forms. */
  member: { browser: FormBrowser; csrf: string };
  guest: { browser: FormBrowser; csrf: string };
  close(): Promise<void>;
}

export async function routeWorld(): Promise<RouteWorld> {
  const twin = await startStripeTwin();
  const api = await startApi({ budget: GENEROUS_BUDGET, stripeTwin: twin });
  const stripe = api.deps.stripe as StripePayments;
  stripe.billing = await setUpSimulatedBilling(stripe.client, api.url);
  const creator = await createTestCreator({ label: "hostile-routes" });
  const suite = { api, creator, client: new ApiClient(api.url, creator.token) } as ApiSuite;
  const fixture = await projectWithPlan(suite);
  const { row } = await connectStripeMethod(creator, fixture.projectId, { twin, client: stripe.client });
  const portal = await startPortal({ stripe });
  const browser = await signedInAs(portal.url, api.url, fixture, randomInt(10_000_000, 99_999_999));
  const guest = new PortalBrowser(portal.url);
  const page = `/${fixture.handle}`;
  return {
    api,
    twin,
    stripe,
    portal,
    fixture,
    methodId: row.id,
    member: { browser, csrf: await browser.csrfFrom(page) },
    guest: { browser: guest, csrf: await guest.csrfFrom(page) },
    async close() {
      await portal.close();
      await api.close();
      await twin.close();
    },
  };
}

/** The world for the describe it is called in: up before its tests, closed after them. */
export function useRouteWorld(): () => RouteWorld {
  let world: RouteWorld | null = null;
  before(async () => {
    world = await routeWorld();
  });
  after(async () => {
    closeConnections();
    await world?.close();
  });
  return () => world!;
}

/** A stack trace, or a path into the code, anywhere in an answer. */
const STACK = /\n\s+at\s|\bat [\w$.<>]+ \(|(?:file:\/\/|\/src\/|node_modules\/)[^\s"'<]*:\d+/;

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/**
 * Every invariant of an answer to a hostile route request: below 500, no stack trace; from the API
 * the error envelope for a refusal; from the portal an HTML page (a refusal the HTTP parser answers
 * before any route is the envelope there too).
 */
export function checkRouteAnswer(c: RouteCase, answer: HttpAnswer, surface: "api" | "portal"): string {
  const where = `${c.route} ${c.slot} answered ${answer.status}`;
  assert.ok(answer.status < 500, `${where}: ${excerpt(answer.text)}`);
  assert.doesNotMatch(answer.text, STACK, `${where}: a stack trace in the body: ${excerpt(answer.text)}`);
  const json = /json/.test(String(answer.headers["content-type"]));
  if (json || surface === "api") {
    assert.equal(answer.jsonError, undefined, `${where}: JSON that does not parse: ${excerpt(answer.text)}`);
    if (answer.status >= 400) checkEnvelope(answer.json, answer.status, header(answer, "x-request-id"), where);
  } else if (answer.status < 300 || answer.status >= 400) {
    assert.match(String(answer.headers["content-type"]), /^text\/html/, `${where}: not a page`);
  }
  const code = (answer.json as { error?: { code?: string } } | undefined)?.error?.code;
  return `${answer.status}${code ? ` ${code}` : ""}`;
}
