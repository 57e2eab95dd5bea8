// Hostile input to the portal's pages and forms (issue 43: a checkout whose payment method field was
// no UUID answered 500). Every form is sent with a real CSRF token and, where a member acts, the
// signed-in member's cookies, so the hostile place reaches the handler: a path segment, a form
// field (or fields nobody declared), a query parameter, or the body's framing. Every answer is a
// page (or a redirect) below 500, without a stack trace.
import { randomInt, randomUUID } from "node:crypto";
import fc from "fast-check";
import { FAMILIES, hostileQuery, type Family, type Pairs } from "./hostile-values.ts";
import { send } from "./raw-http.ts";
import { describeRouteCase, FORM_FRAMINGS, formBody, hostileForm, hostileSegments, type RouteCase } from "./route-cases.ts";
import { checkRouteAnswer, type RouteWorld } from "./route-world.ts";
import { readable, runProperty, runsFor, type RunCounts } from "./run.ts";
import type { ParamModel } from "./spec-model.ts";

interface PortalRoute {
  method: "GET" | "POST";
  /** Segments in braces are filled with valid values, one of them hostile in the "path" family. */
  path: string;
  /** The form's fields (valid, encoded), for a POST; its query parameters, for a GET. */
  fields: (w: RouteWorld) => Record<string, string>;
  as: "member" | "guest";
}

const ROUTES: readonly PortalRoute[] = [
  { method: "POST", path: "/{handle}/plans/{plan}/checkout", fields: (w) => ({ method: w.methodId, coupon: "" }), as: "member" },
  { method: "POST", path: "/{handle}/redeem", fields: () => ({ code: "NOT-A-CODE" }), as: "member" },
  {
    method: "POST",
    path: "/{handle}/sign-in",
    fields: (w) => ({ installation: w.fixture.installation.id, return_to: `%2F${w.fixture.handle}` }),
    as: "guest",
  },
  { method: "POST", path: "/{handle}/sign-in/{id}", fields: () => ({}), as: "guest" },
  { method: "POST", path: "/{handle}/sign-in/confirm/{secret}", fields: () => ({}), as: "guest" },
  { method: "POST", path: "/{handle}/subscriptions/{subscription}/cancel", fields: () => ({}), as: "member" },
  { method: "POST", path: "/{handle}/sign-out", fields: () => ({}), as: "guest" },
  { method: "GET", path: "/{handle}", fields: (w) => ({ plan: w.fixture.plan.planId }), as: "member" },
  { method: "GET", path: "/{handle}/account", fields: () => ({}), as: "member" },
  { method: "GET", path: "/{handle}/checkout/{id}", fields: () => ({ wait: "3" }), as: "member" },
  { method: "GET", path: "/{handle}/sign-in/{id}", fields: () => ({}), as: "guest" },
  { method: "GET", path: "/{handle}/sign-in/confirm/{secret}", fields: () => ({}), as: "guest" },
  { method: "GET", path: "/{handle}/subscriptions/{subscription}/cancel", fields: () => ({}), as: "member" },
];

const SEGMENT = /\{([a-z]+)\}/g;

/** Enough of a world to read a route's field names before the world is up. */
const NAMES_ONLY = { methodId: "", fixture: { handle: "", installation: { id: "" }, plan: { planId: "" } } } as unknown as RouteWorld;

/** The hostile query pairs of `family` for a page's parameter `name` (null: parameters nobody declared), or null for none. */
const hostilePairs = (family: Family, name: string | null) => hostileQuery(family, name === null ? null : ({ name } as ParamModel));

/** The portal's properties, `counts` runs each, against the world `current()` answers once it is up. */
export function portalFormProperties(current: () => RouteWorld, counts: RunCounts): void {
  describe("the portal's pages and forms", () => {
    let world: RouteWorld;
    before(() => (world = current()));

    const valid = (name: string): string =>
      ({ handle: world.fixture.handle, plan: world.fixture.plan.planId, secret: "not-a-secret" })[name] ?? randomUUID();

    function request(
      route: PortalRoute,
      family: string,
      slot: string,
      label: string,
      parts: { path?: string; pairs?: Pairs; body?: Buffer | null; type?: string | null },
    ): RouteCase {
      const who = route.as === "member" ? world.member : world.guest;
      const path = parts.path ?? route.path.replace(SEGMENT, (_, name: string) => valid(name));
      const query = route.method === "GET" && parts.pairs?.length ? `?${formBody(parts.pairs).toString("latin1")}` : "";
      const body = route.method === "POST" ? (parts.body !== undefined ? parts.body : formBody(parts.pairs ?? [])) : null;
      const type = parts.type !== undefined ? parts.type : route.method === "POST" ? "application/x-www-form-urlencoded" : null;
      const headers: Record<string, string> = {
        cookie: [...who.browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        // Each request from an address of its own: the portal's per-address budget is not what is tested.
        "x-test-ip": `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`,
        ...(type ? { "content-type": type } : {}),
      };
      return { route: `${route.method} ${route.path}`, family, slot, label, method: route.method, target: `${path}${query}`, headers, body };
    }

    const validPairs = (route: PortalRoute): Pairs => {
      const who = route.as === "member" ? world.member : world.guest;
      return [...Object.entries(route.fields(world)), ...(route.method === "POST" ? [["_csrf", encodeURIComponent(who.csrf)] as const] : [])];
    };

    const check = async (c: RouteCase) => checkRouteAnswer(c, await send(world.portal.url, c.method, c.target, c.headers, c.body), "portal");
    const property = (route: PortalRoute, family: string, cases: () => fc.Arbitrary<RouteCase>) =>
      it(family, async () => {
        await runProperty(
          `portal ${route.method} ${route.path} ${family}`,
          cases().map((c) => readable({ ...c }, describeRouteCase)),
          check,
          runsFor(counts, family),
        );
      });

    for (const route of ROUTES) {
      describe(`${route.method} ${route.path}`, () => {
        const segments = [...route.path.matchAll(SEGMENT)].map((m) => m[1]!);
        property(route, "path", () =>
          fc.tuple(fc.constantFrom(...segments), hostileSegments()).map(([name, h]) => {
            const path = route.path.replace(SEGMENT, (_, n: string) => (n === name ? h.value : valid(n)));
            return request(route, "path", `segment ${name}`, h.label, { path, pairs: validPairs(route) });
          }),
        );
        // A form's fields (with its CSRF token) or a page's query parameters, and ones nobody declared.
        const names = [...Object.keys(route.fields(NAMES_ONLY)), ...(route.method === "POST" ? ["_csrf"] : []), null];
        for (const family of FAMILIES as readonly Family[]) {
          if (!names.some((name) => hostilePairs(family, name))) continue;
          property(route, family, () => {
            const pairs = Object.fromEntries(validPairs(route));
            if (route.method === "POST") return hostileForm(pairs, family)!.map((h) => request(route, family, h.slot, h.label, { pairs: h.pairs }));
            const slots = names.flatMap((name) => {
              const hostile = hostilePairs(family, name);
              const rest: Pairs = Object.entries(pairs).filter(([k]) => k !== name);
              return hostile
                ? [hostile.map((h) => request(route, family, name ? `query ${name}` : "extra query keys", h.label, { pairs: [...rest, ...h.value] }))]
                : [];
            });
            return fc.oneof(...slots);
          });
        }
        if (route.method === "POST")
          property(route, "framing", () =>
            fc.constantFrom(...FORM_FRAMINGS).map(([label, type, body]) => request(route, "framing", "body", label, { body, type })),
          );
      });
    }
  });
}
