// Two-factor authentication on {auth_url}: the security page (set-up) and the second step of sign-in.
import type { Router } from "@koa/router";
import type { AuthDeps } from "../deps.ts";
import { mountSecurityPages } from "./security-pages.ts";
import { mountTwoFactorPages } from "./two-factor-pages.ts";

export function mountSecondFactorPages(router: Router, deps: AuthDeps): void {
  mountSecurityPages(router, deps);
  mountTwoFactorPages(router, deps);
}
