// What the subscriber portal needs.
import type { Logger } from "pino";
import type { Db } from "../../db/tenant.ts";
import type { Kv } from "../../kv/kv.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import type { ConnectorRegistry } from "../../modules/connectors/registry.ts";
import type { PlatformEndpoints } from "../../config.ts";
import type { StripePayments } from "../../modules/payments/stripe/stripe-payments.ts";

export interface PortalDeps {
  db: Db;
  kv: Kv;
  /** Seals the handoff tokens; opens connector credentials for the access sync after a redemption. */
  appKey: Buffer;
  now: () => Date;
  release: string;
  logger: Logger;
  /** This surface's public address: a project's portal is <portalUrl>/<handle>. */
  portalUrl: string;
  docsUrl: string;
  /** The loaded connector packages: their names, portal buttons and resource labels. */
  connectors: ConnectorRegistry;
  /** Where the connector drivers reach their platforms (invite links after a redemption). */
  platforms: PlatformEndpoints;
  clientIp?: ClientIpResolver;
  /** The platform's Stripe, for the members' checkouts on Stripe methods; absent or null = none. */
  stripe?: StripePayments | null;
  /** How long the page a provider sends a member back to waits for the payment's confirmation (CONFIRM_WAIT_MS by default). */
  confirmWaitMs?: number;
}
