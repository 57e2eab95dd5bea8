// The portal's one cookie: a random browser key (HttpOnly, SameSite=Lax, host-only; Secure and
// __Host- prefixed on https). It binds a sign-in handoff to the browser that started it and, once
// signed in, names the browser's portal sessions (stored as its SHA-256).
import type Koa from "koa";
import { cookieName, cookieOptions } from "../auth/pages/cookies.ts";
import { newBrowserKey, PORTAL_SESSION_MAX_AGE_MS } from "../../modules/portal/sessions.ts";

const COOKIE = "sb_portal";

export function browserKeyOf(ctx: Koa.Context): string | null {
  const key = ctx.cookies.get(cookieName(ctx, COOKIE));
  return key && /^[A-Za-z0-9]{43}$/.test(key) ? key : null;
}

export function setBrowserKey(ctx: Koa.Context, key: string): void {
  ctx.cookies.set(cookieName(ctx, COOKIE), key, { ...cookieOptions(ctx), maxAge: PORTAL_SESSION_MAX_AGE_MS });
}

/** The browser's key, given one now when it has none (starting a sign-in needs it). */
export function ensureBrowserKey(ctx: Koa.Context): string {
  const key = browserKeyOf(ctx) ?? newBrowserKey();
  setBrowserKey(ctx, key);
  return key;
}
