// Cookies of the auth host: HttpOnly, SameSite=Lax, host-only (no Domain), Secure and __Host-
// prefixed when {auth_url} is https. A TLS-terminating proxy in front is expected in production,
// so "https" is read from the public address, not from the connection.
import type Koa from "koa";

export interface CookieSecurity {
  authOrigin: string;
  secure: boolean;
}

/** Middleware: records the public origin and lets Secure cookies be set behind a TLS proxy. */
export function cookieSecurity(authUrl: string): Koa.Middleware {
  const url = new URL(authUrl);
  const secure = url.protocol === "https:";
  return async (ctx, next) => {
    Object.assign(ctx.state as object, { authOrigin: url.origin, cookieSecure: secure });
    if (secure) ctx.cookies.secure = true;
    await next();
  };
}

export function cookieName(ctx: Koa.Context, base: string): string {
  return (ctx.state as { cookieSecure?: boolean }).cookieSecure ? `__Host-${base}` : base;
}

export function cookieOptions(ctx: Koa.Context) {
  const secure = (ctx.state as { cookieSecure?: boolean }).cookieSecure === true;
  return { httpOnly: true, sameSite: "lax" as const, secure, path: "/", overwrite: true, signed: false };
}
