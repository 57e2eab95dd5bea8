// {base_url}/.well-known/ai-plugin.json: the plugin manifest (schema v1) that names the OpenAPI
// document and says how to authenticate (a bearer token the user supplies).
import type { DiscoveryAddresses } from "./addresses.ts";
import { AUTH_MD_PATH } from "./addresses.ts";

export function aiPluginManifest(urls: DiscoveryAddresses) {
  return {
    schema_version: "v1",
    name_for_human: "SubBridge",
    name_for_model: "subbridge",
    description_for_human: "Run paid memberships for your communities: projects, plans, members, access codes and connectors.",
    description_for_model:
      "SubBridge REST API for one creator's team: projects, subscription plans, members, access codes, coupons, resources, connectors, support, webhooks and the activity log. " +
      "Send Authorization: Bearer <personal access token>. Every POST, PATCH, PUT and DELETE needs an Idempotency-Key header (a fresh UUID). " +
      `Errors are {error: {code, message, docs_url, remediation, request_id}}. How to get a token: ${urls.baseUrl}${AUTH_MD_PATH}.`,
    auth: { type: "user_http", authorization_type: "bearer" },
    api: { type: "openapi", url: `${urls.baseUrl}/openapi.json`, is_user_authenticated: true },
  };
}
