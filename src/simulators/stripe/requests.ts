// What every API route shares: the request's context, Stripe's list objects and paging, field
// updates, and `expand[]`.
import { lineItems } from "./checkout.ts";
import { invalidRequest, type Params } from "./errors.ts";
import { clone, type Account, type StripeObject, type TwinState } from "./state.ts";

export interface RequestContext {
  state: TwinState;
  account: Account;
  p: Params;
  /** The path's id segments, in order. */
  ids: string[];
  /** The twin's address, for the URLs it hands out (checkout and onboarding pages). */
  baseUrl: string;
}

export type Handler = (ctx: RequestContext) => unknown;

/** A list object, newest first, paged with limit and starting_after / ending_before as Stripe pages. */
export function list(ctx: RequestContext, objects: StripeObject[], url: string) {
  const limit = ctx.p.integer("limit", false, 1) ?? 10;
  if (limit > 100) throw invalidRequest("This value must be less than or equal to 100.", "limit", "parameter_invalid_integer");
  const after = ctx.p.string("starting_after");
  const before = ctx.p.string("ending_before");
  let start = 0;
  let end = objects.length;
  if (after) start = objects.findIndex((o) => o.id === after) + 1;
  if (before)
    end = Math.max(
      0,
      objects.findIndex((o) => o.id === before),
    );
  const page = before ? objects.slice(Math.max(start, end - limit), end) : objects.slice(start, start + limit);
  const hasMore = before ? end - limit > start : start + limit < end;
  return { object: "list", data: page, has_more: hasMore, url };
}

export const byField = (ctx: RequestContext, objects: StripeObject[], fields: string[]) =>
  objects.filter((o) => fields.every((f) => !ctx.p.has(f) || String(o[f]) === ctx.p.string(f)));

export function createdRange(ctx: RequestContext, objects: StripeObject[]) {
  const range = ctx.p.hash("created");
  if (!range) return objects;
  const [gt, gte, lt, lte] = ["gt", "gte", "lt", "lte"].map((k) => range.integer(k));
  return objects.filter((o) => {
    const c = o.created as number;
    return (gt === undefined || c > gt) && (gte === undefined || c >= gte) && (lt === undefined || c < lt) && (lte === undefined || c <= lte);
  });
}

export function update(object: StripeObject, p: Params, fields: Record<string, "string" | "boolean" | "integer">) {
  for (const [field, type] of Object.entries(fields)) {
    if (!p.has(field)) continue;
    object[field] = type === "boolean" ? p.boolean(field) : type === "integer" ? p.integer(field) : p.string(field) || null;
  }
  // Stripe unsets a metadata key sent empty (`metadata[key]=`) and all of it for `metadata=`.
  if (p.metadata() !== undefined) {
    const sent = p.values.metadata;
    const next: Record<string, unknown> = sent === "" ? {} : { ...(object.metadata as object) };
    if (typeof sent === "object") for (const [key, value] of Object.entries(sent)) value === "" ? delete next[key] : (next[key] = value);
    object.metadata = next;
  }
  return object;
}

export const deleted = (object: StripeObject) => ({ id: object.id, object: object.object, deleted: true });

export function expand(state: TwinState, account: Account, body: unknown, paths: string[]): unknown {
  if (paths.length === 0 || typeof body !== "object" || body === null) return body;
  const result = clone(body) as Record<string, unknown>;
  for (const path of paths) {
    if (path.length > 200 || path.split(".").length > 4)
      throw invalidRequest(`You cannot expand more than 4 levels of a property. Property: ${path}`, "expand");
    const walk = (node: unknown, keys: string[]) => {
      if (typeof node !== "object" || node === null) return;
      const target = node as Record<string, unknown>;
      const [key, ...rest] = keys;
      if (key === "data" && Array.isArray(target.data) && rest.length) return target.data.forEach((item) => walk(item, rest));
      if (key === "line_items" && target.object === "checkout.session" && rest.length === 0)
        return void (target.line_items = lineItems(state, state.get(account, target.id as string, "checkout.session")));
      if (!(key! in target)) throw invalidRequest(`This property cannot be expanded (${path}).`, "expand");
      if (typeof target[key!] === "string") {
        const found = state.find(account, target[key!] as string) ?? state.find(null, target[key!] as string, "account");
        if (found) target[key!] = clone(found);
      }
      if (rest.length) walk(target[key!], rest);
    };
    walk(result, path.split("."));
  }
  return result;
}
