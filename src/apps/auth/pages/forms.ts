// Reading forms sent by the pages, and the refusal a page shows to a person (an HTML page with a
// readable message and the right status, never JSON or a stack trace).
import type Koa from "koa";
import { readBodyText } from "../../../http/body.ts";
import { readUrlencoded } from "../requests.ts";
import { verifyCsrf } from "./csrf.ts";
import { PageError } from "./page-error.ts";

/**
 * A urlencoded form's fields (the last value of a repeated name wins, except those read with `all`),
 * CSRF checked; a field the input rules refuse (src/apps/auth/requests.ts) is a 400 page.
 */
export async function readPageForm(ctx: Koa.Context): Promise<{ fields: Record<string, string>; all: (name: string) => string[] }> {
  const type = ctx.get("content-type").split(";")[0]!.trim().toLowerCase();
  let text = "";
  if (type === "application/x-www-form-urlencoded") {
    try {
      text = (await readBodyText(ctx)).text;
    } catch {
      throw new PageError(413, "The form was too large or could not be read.");
    }
  } else if (type !== "" || Number(ctx.get("content-length") || 0) > 0) {
    throw new PageError(415, "This page takes a form (application/x-www-form-urlencoded).");
  }
  const { values, refused } = readUrlencoded(text);
  if (refused) throw new PageError(400, `The form could not be read: ${refused}. Go back, correct it and send it again.`);
  const fields: Record<string, string> = {};
  for (const [name, given] of values) fields[name] = given.at(-1)!;
  verifyCsrf(ctx, fields);
  return { fields, all: (name) => values.get(name) ?? [] };
}

// The return-address rule is shared with every surface (src/http/return-address.ts); exported here too for the pages that read it with their forms.
export { safeReturnTo } from "../../../http/return-address.ts";
