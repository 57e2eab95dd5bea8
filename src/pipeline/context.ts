// What a handler receives besides its input. Built by a transport (REST or MCP) after
// authentication, tenancy, abilities and validation have passed.
import type { ProviderRegistry } from "../modules/payments/providers.ts";
import type { Environment } from "../modules/tokens/environment.ts";
import type { Input, OperationId, OperationSpec } from "../../generated/operations.ts";
import type { Actor, CredentialKind, DomainContext } from "../db/tenant.ts";
import type { ConnectorRegistry } from "../modules/connectors/registry.ts";
import type { PlatformEndpoints } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { WebhookNetwork } from "../modules/webhooks/address-guard.ts";

/** The credential a request presented, resolved. */
export interface Principal {
  credentialKind: CredentialKind;
  /** Token id (personal access tokens) or grant id (OAuth). */
  credentialId: string;
  userId: string;
  /** Null when the credential carries no team scope the creator can still see. */
  teamId: string | null;
  /** What the credential may do team-wide. */
  abilities: ReadonlySet<string>;
  /** What it may also do on some projects (the creator's groups), beyond `abilities`. */
  projectAbilities: ReadonlyMap<string, ReadonlySet<string>>;
  projectIds: readonly string[] | null;
  /** The dashboard's sign-in (a first-party OAuth token): what it changes is the creator's own doing (actor kind human). */
  human?: boolean;
}

export interface OperationContext {
  operation: OperationSpec;
  now: Date;
  requestId: string;
  /** Null on public operations. */
  principal: Principal | null;
  /**
   * Who acts, inside the operation's transaction (writes: the change, its activity entry and its
   * events commit together). Null on public operations, which touch no tenant data.
   */
  domain: DomainContext | null;
  /** The REST address of this request (for list links), whichever transport carried it. */
  resourceUrl: URL;
  release: string;
  /** Public address of the authorization server (links people open: invitations, sign-in). */
  authUrl: string;
  /** The connector packages loaded at start (the same for every team). */
  connectors: ConnectorRegistry;
  /** Where the connector drivers reach their platforms. */
  platforms: PlatformEndpoints;
  /** APP_KEY: seals connector credentials (encrypt bound to the installation id). */
  appKey: Buffer;
  /** Public address of the subscriber portal (PORTAL_URL); a project's portal is <portalUrl>/<handle>. */
  portalUrl: string;
  /** Public base URL of the REST API (where platforms deliver a bot's updates). */
  baseUrl: string;
  /** Public address of the creator dashboard (DASHBOARD_URL), for links a creator opens; null when not configured. */
  dashboardUrl: string | null;
  /**
   * Arguments only an MCP tool takes, outside the REST request (x-mcp-keyset: the cursor); null
   * over REST. A keyset list answers the tool its own shape when this is not null.
   */
  toolArguments: Readonly<Record<string, string>> | null;
  /** The payment providers, for a change that must reach one (a provider-billed subscription cancelled). */
  payments: () => ProviderRegistry;
  /** Where webhooks may be sent (WEBHOOK_ALLOWED_CIDRS, WEBHOOK_ALLOW_HTTP, WEBHOOK_TIMEOUT_MS). */
  webhooks: WebhookNetwork;
  /** What the operation's preflight answered before the transaction opened (see Preflights); null when it has none. */
  preflight: unknown;
  /** The deployment's environment: the prefix of the tokens it mints (create_token). */
  environment: Environment;
}

/**
 * Work a write does before its transaction opens: a call to another system (a platform asked
 * whether credentials work) never runs while a transaction holds a connection and its locks. It
 * sees `domain` on the plain connection (reads only) and `preflight` null; what it answers reaches
 * the handler as ctx.preflight. An area exports its preflights beside its handlers.
 */
export type Preflights = { [Id in OperationId]?: (input: Input<Id>, ctx: OperationContext) => Promise<unknown> };

/** The domain view of an authenticated operation. */
export function domainContext(ctx: OperationContext): DomainContext {
  if (!ctx.domain) throw new ApiError("AUTHENTICATION_REQUIRED", "This operation needs a credential.");
  return ctx.domain;
}

/** The domain view, with the creator known (every credential belongs to a creator). */
export function creatorContext(ctx: OperationContext): DomainContext & { actor: Actor & { userId: string } } {
  const domain = domainContext(ctx);
  if (!domain.actor.userId) throw new ApiError("AUTHENTICATION_REQUIRED", "This operation needs a creator's credential.");
  return domain as DomainContext & { actor: Actor & { userId: string } };
}
