// What the authorization server's routes need.
import type { Logger } from "pino";
import type { Database } from "../../db/database.ts";
import type { Kv } from "../../kv/kv.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import type { PlatformEndpoints } from "../../config.ts";
import type { StripePayments } from "../../modules/payments/stripe/stripe-payments.ts";
import type { Environment } from "../../modules/tokens/environment.ts";

export interface AuthDeps {
  db: Database;
  kv: Kv;
  appKey: Buffer;
  now: () => Date;
  release: string;
  logger: Logger;
  /** This surface's public address (issuer, endpoints, pages). */
  authUrl: string;
  /** The MCP server's address (the resource its tokens are for). */
  mcpUrl: string;
  /** The creator dashboard's address (DASHBOARD_URL): linked from every signed-in page. */
  dashboardUrl?: string;
  baseUrl: string;
  docsUrl: string;
  clientIp?: ClientIpResolver;
  /** The platform's Stripe (Connect onboarding, the creators' own tier billing); absent or null = none. */
  stripe?: StripePayments | null;
  /** Where the bots' platforms are: a creator's Telegram Stars refund calls refundStarPayment, and ends access there. */
  platforms: PlatformEndpoints;
  /** SUBBRIDGE_ENVIRONMENT: the prefix of the tokens this host mints (sbt_live_ or sbt_test_); absent = live. */
  environment?: Environment;
}
