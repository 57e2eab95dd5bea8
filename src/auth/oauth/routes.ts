// OAuth 2.1 for MCP clients (service description, "OAuth 2.1"): dynamic client registration,
// the authorization endpoint, and the authorization_code and refresh_token grants.
import type { Router } from "@koa/router";
import type { AuthDeps } from "../deps.ts";
import type { Grant } from "../token-endpoint.ts";

export function mountOAuthRoutes(_router: Router, _deps: AuthDeps): void {}

export const oauthGrants: Readonly<Record<string, Grant>> = {};
