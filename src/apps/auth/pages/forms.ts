// Reading forms sent by the pages, and the refusal a page shows to a person (an HTML page with a
// readable message and the right status, never JSON or a stack trace).
import type Koa from "koa";
import { readBodyText } from "../../../http/body.ts";
import { verifyCsrf } from "./csrf.ts";
import { PageError } from "./page-error.ts";

/** A urlencoded form's fields (the last value of a repeated name wins, except those read with `all`), CSRF checked. */
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
  const params = new URLSearchParams(text);
  const fields: Record<string, string> = {};
  for (const [name, value] of params) fields[name] = value;
  verifyCsrf(ctx, fields);
  return { fields, all: (name) => params.getAll(name) };
}

// The return-address rule is shared with every surface (src/http/return-address.ts); exported here too for the pages that read it with their forms.
export { safeReturnTo } from "../../../http/return-address.ts";
