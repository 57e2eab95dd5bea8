// The Stripe settings of the configuration (src/config.ts): the platform's key, the Connect
// endpoint's secret, a Stripe-compatible server, and the creators' own tier billing. A bad value is
// a one-line ConfigError naming the variable.
import { ConfigError, urlOrNull, type Env } from "./config-values.ts";

/**
 * Stripe (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_URL). `simulated`: none is set and
 * the database is embedded, so `npm start` runs the Stripe twin on loopback; with none set on
 * PostgreSQL there is no Stripe (secretKey null): payments by Stripe are unavailable.
 */
export interface StripeConfig {
  /** The platform's secret key (sk_live_/sk_test_, or a restricted rk_ key); null = no Stripe. */
  secretKey: string | null;
  /** The Connect webhook endpoint's signing secret (whsec_); set with the key. */
  webhookSecret: string | null;
  /** A Stripe-compatible server (the twin) instead of api.stripe.com; null = real Stripe. */
  apiUrl: string | null;
  simulated: boolean;
  /**
   * The creators' own tiers billed on the platform account (STRIPE_BILLING_WEBHOOK_SECRET,
   * BILLING_STARTER_PRICE, BILLING_GROWTH_PRICE, set together with the key); null = no tier billing
   * (on a simulated start the twin's prices and endpoint are made at start instead).
   */
  billing: { webhookSecret: string; prices: { starter: string; growth: string } } | null;
}

export function stripeConfig(env: Env): StripeConfig {
  const secretKey = env.STRIPE_SECRET_KEY || null;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET || null;
  const apiUrl = urlOrNull(env, "STRIPE_API_URL", ["http:", "https:"]);
  if (secretKey !== null && !/^[sr]k_(live|test)_[A-Za-z0-9]{8,}$/.test(secretKey))
    throw new ConfigError("STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_..., sk_test_..., or a restricted rk_ key)");
  if (webhookSecret !== null && !/^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(webhookSecret))
    throw new ConfigError("STRIPE_WEBHOOK_SECRET must be the Connect webhook endpoint's signing secret (whsec_...)");
  // Without the secret no event could be verified, so a key alone would take money it never records.
  if ((secretKey === null) !== (webhookSecret === null))
    throw new ConfigError("STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together (the platform's key and its Connect endpoint's secret)");
  if (apiUrl !== null && secretKey === null)
    throw new ConfigError("STRIPE_API_URL needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (the key and secret of that server)");
  return { secretKey, webhookSecret, apiUrl, simulated: !env.DATABASE_URL && secretKey === null, billing: billingConfig(env, secretKey) };
}

function billingConfig(env: Env, secretKey: string | null): StripeConfig["billing"] {
  const webhookSecret = env.STRIPE_BILLING_WEBHOOK_SECRET || null;
  const starter = env.BILLING_STARTER_PRICE || null;
  const growth = env.BILLING_GROWTH_PRICE || null;
  if (webhookSecret === null && starter === null && growth === null) return null;
  if (webhookSecret !== null && !/^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(webhookSecret))
    throw new ConfigError("STRIPE_BILLING_WEBHOOK_SECRET must be the platform webhook endpoint's signing secret (whsec_...)");
  for (const [name, value] of [
    ["BILLING_STARTER_PRICE", starter],
    ["BILLING_GROWTH_PRICE", growth],
  ] as const)
    if (value !== null && !/^price_[A-Za-z0-9]{4,}$/.test(value)) throw new ConfigError(`${name} must be a Stripe price id (price_...)`);
  // A tier's price without the endpoint's secret would take payments whose events never change the tier.
  if (webhookSecret === null || starter === null || growth === null)
    throw new ConfigError("STRIPE_BILLING_WEBHOOK_SECRET, BILLING_STARTER_PRICE and BILLING_GROWTH_PRICE are set together (tier billing)");
  if (secretKey === null)
    throw new ConfigError("STRIPE_BILLING_WEBHOOK_SECRET and the tier prices need STRIPE_SECRET_KEY (the platform account they bill on)");
  if (starter === growth) throw new ConfigError("BILLING_STARTER_PRICE and BILLING_GROWTH_PRICE must be two different prices");
  return { webhookSecret, prices: { starter, growth } };
}
