// Whether a browser has signed in to an account before, so the security alert says "new sign-in"
// only when it is one: a long-lived HttpOnly cookie holding, for the last few creators who signed in
// with the browser, an HMAC of their id under APP_KEY (a reader learns nothing and cannot make one
// for another account). A browser that clears its cookies counts as new again, which errs on the
// side of telling the creator.
import { createHmac } from "node:crypto";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";

/** Creators remembered per browser (a shared computer keeps a few). */
const KEEP = 5;
/** Browsers cap a cookie's life at 400 days. */
const MAX_AGE_MS = 400 * 86_400_000;

const cookieName = (deps: Pick<AuthDeps, "authUrl">) => (new URL(deps.authUrl).protocol === "https:" ? "__Host-sb_known" : "sb_known");
const markOf = (deps: Pick<AuthDeps, "appKey">, userId: string) =>
  createHmac("sha256", deps.appKey).update(`known-device:${userId}`).digest("base64url").slice(0, 22);

/** Records the sign-in of `userId` in this browser; answers whether the browser had signed in to that account before. */
export function rememberDevice(ctx: Koa.Context, deps: Pick<AuthDeps, "appKey" | "authUrl">, userId: string): boolean {
  const name = cookieName(deps);
  const marks = (ctx.cookies.get(name) ?? "").split(".").filter((m) => /^[A-Za-z0-9_-]{22}$/.test(m));
  const mark = markOf(deps, userId);
  const known = marks.includes(mark);
  const kept = [mark, ...marks.filter((m) => m !== mark)].slice(0, KEEP);
  ctx.cookies.set(name, kept.join("."), {
    httpOnly: true,
    sameSite: "lax",
    secure: name.startsWith("__Host-"),
    path: "/",
    maxAge: MAX_AGE_MS,
    overwrite: true,
  });
  return known;
}
