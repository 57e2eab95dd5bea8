// Agent registration without a browser (service description, "Agent registration"): POST
// /agent/identity, POST /agent/identity/claim, and the claim grant of the token endpoint.
import type { Router } from "@koa/router";
import type { AuthDeps } from "../deps.ts";
import type { Grant } from "../token-endpoint.ts";

export function mountAgentRoutes(_router: Router, _deps: AuthDeps): void {}

export const agentGrants: Readonly<Record<string, Grant>> = {};
