// A page handler's refusals, shown to a person: PageError (and an AccountError from the account
// rules) becomes an HTML page with a readable message and its status, and so does a query string
// the input rules refuse (src/apps/auth/requests.ts). Anything else is left to the request context
// (500 with a request id, nothing internal shown).
import type Koa from "koa";
import type { Router } from "@koa/router";
import { allowedMethods } from "../../../http/route-fallback.ts";
import { AccountError } from "../../../modules/account/creators.ts";
import { readUrlencoded } from "../requests.ts";
import { PageError } from "./page-error.ts";
import { html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";

export function pageRoute(handler: (ctx: Koa.Context) => Promise<void>): Koa.Middleware {
  return async (ctx) => {
    try {
      // Pages read their parameters from ctx.query: one the input rules refuse never reaches them.
      const { refused } = readUrlencoded(ctx.querystring);
      if (refused) throw new PageError(400, `This address could not be read: the parameter ${refused}. Check the link you followed.`);
      await handler(ctx);
    } catch (err) {
      if (err instanceof PageError) {
        for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
        renderPage(ctx, {
          title: titleFor(err.status),
          status: err.status,
          body: html`${notice("error", err.message)}
            <p><a href="/">Go to your account</a></p>`,
        });
        return;
      }
      if (err instanceof AccountError) {
        renderPage(ctx, {
          title: "That did not work",
          status: 400,
          body: html`${notice("error", err.message)}
            <p><a href="/">Go to your account</a></p>`,
        });
        return;
      }
      throw err;
    }
  };
}

function titleFor(status: number): string {
  if (status === 403) return "Not allowed";
  if (status === 404) return "Not found";
  if (status === 429) return "Too many attempts";
  return "That did not work";
}

/**
 * A person's browser asking for an address that does not exist gets a page; clients get `{error}`
 * from the fallback after this. An address that exists under other methods (the token endpoint,
 * opened from the metadata or a guide) answers 405 with Allow, on a page saying what it is.
 */
export function pageNotFound(router: Router): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method === "GET" && ctx.accepts("json", "html") === "html") {
      const allow = allowedMethods(router, ctx);
      if (allow) ctx.set("Allow", allow);
      renderPage(ctx, {
        title: allow ? "Not a page" : "Not found",
        status: allow ? 405 : 404,
        body: html`${notice("error", allow ? `This address is an endpoint for applications (it takes ${allow}); there is no page to show.` : "There is no page at this address.")}
          <p><a href="/">Go to your account</a></p>`,
      });
      return;
    }
    await next();
  };
}
