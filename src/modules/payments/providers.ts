// The provider registry (issue 33): which PaymentProvider serves a project's payment method, and
// the method as that provider knows it. Stripe: the creator's connected account, sealed in the
// method's credentials under APP_KEY and bound to its project; Telegram Stars: the project's
// active Telegram installation. Null when the provider cannot be reached from this deployment
// (no Stripe configured, no bot installed), so a caller says "unavailable" instead of failing.
import type Stripe from "stripe";
import { unscoped, type Db } from "../../db/tenant.ts";
import { decrypt, encrypt } from "../../security/crypto.ts";
import { installationSession } from "../connectors/bot/session.ts";
import type { ConnectorEnvironment } from "../connectors/environment.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import type { PaymentMethodRow } from "../payment-methods/tables.ts";
import type { ConnectedMethod, PaymentProvider } from "./provider.ts";
import { starsProvider } from "./stars/provider.ts";
import { stripeProvider } from "./stripe/provider.ts";

/** What a Stripe method's sealed credentials hold. */
export interface StripeMethodCredentials {
  /** The creator's connected account (acct_…). */
  account: string;
}

/** Sealed credentials open only on the project they were sealed for (a copied value cannot be used elsewhere). */
const methodBinding = (projectId: string) => `payment_methods:${projectId}`;

/** The credentials createPaymentMethod stores for a Stripe method. */
export function sealStripeCredentials(appKey: Buffer, projectId: string, credentials: StripeMethodCredentials): string {
  return encrypt(appKey, JSON.stringify(credentials), methodBinding(projectId));
}

function openStripeCredentials(appKey: Buffer, row: PaymentMethodRow): StripeMethodCredentials | null {
  if (!row.credentials) return null;
  const opened = JSON.parse(decrypt(appKey, row.credentials, methodBinding(row.project_id))) as Partial<StripeMethodCredentials>;
  return typeof opened.account === "string" && opened.account ? { account: opened.account } : null;
}

export interface ProviderDeps {
  db: Db;
  /** The platform's Stripe client; null when this deployment has no Stripe. */
  stripe: Stripe | null;
  /** Where the bot's platform is and the key its credentials (and the methods') are sealed with. */
  connectors: Pick<ConnectorEnvironment, "platforms" | "appKey">;
}

export interface ProviderTarget {
  provider: PaymentProvider;
  method: ConnectedMethod;
}

export interface ProviderRegistry {
  providerFor(row: PaymentMethodRow): Promise<ProviderTarget | null>;
  /** The platform's Stripe client (its own key: an account's standing is asked with it); null when this deployment has no Stripe. */
  readonly stripe: Stripe | null;
}

export function providerRegistry(deps: ProviderDeps): ProviderRegistry {
  const stripe = deps.stripe ? stripeProvider(deps.stripe) : null;
  return {
    stripe: deps.stripe,
    async providerFor(row) {
      if (row.provider === "stripe") {
        const credentials = openStripeCredentials(deps.connectors.appKey, row);
        if (!stripe || !credentials) return null;
        return { provider: stripe, method: { paymentMethodId: row.id, account: credentials.account, mode: row.mode } };
      }
      if (row.provider === "telegram_stars") {
        const installation = (await unscoped(
          deps.db,
          "the payment method's project names its Telegram installation",
        )("connector_installations")
          .where({ project_id: row.project_id, team_id: row.team_id, connector_key: "telegram", status: "active" })
          .first()) as InstallationRow | undefined;
        if (!installation) return null;
        return {
          provider: starsProvider(async () => installationSession(deps.connectors, installation)),
          method: { paymentMethodId: row.id, account: installation.id, mode: row.mode },
        };
      }
      return null;
    },
  };
}

/** The registry of a running surface: its database, the platform's Stripe (absent or null: none) and the bots' platforms. */
export function surfaceRegistry(
  deps: { db: Db; stripe?: { client: Stripe } | null } & Pick<ConnectorEnvironment, "platforms" | "appKey">,
): ProviderRegistry {
  return providerRegistry({ db: deps.db, stripe: deps.stripe?.client ?? null, connectors: { platforms: deps.platforms, appKey: deps.appKey } });
}
