// Connect: the platform creates connected accounts and account links; the link's page (or the
// twin's control) completes onboarding, which enables charges and payouts (account.updated).
import { randomBytes } from "node:crypto";
import { invalidRequest } from "./errors.ts";
import type { RequestContext } from "./requests.ts";
import { clone, newId, type TwinState } from "./state.ts";

// --- Connect accounts ---------------------------------------------------------------------------

export function createAccount(ctx: RequestContext) {
  if (ctx.account) throw invalidRequest("A connected account cannot create accounts.", "Stripe-Account");
  const { p, state } = ctx;
  const type = p.oneOf("type", ["standard", "express", "custom"] as const) ?? "standard";
  const profile = p.hash("business_profile");
  const id = newId("acct_", 16);
  return state.put(null, {
    id,
    object: "account",
    business_profile: { name: profile?.string("name") ?? null, support_email: null, url: profile?.string("url") ?? null },
    business_type: p.oneOf("business_type", ["individual", "company", "non_profit", "government_entity"] as const) ?? null,
    capabilities: { card_payments: "inactive", transfers: "inactive" },
    charges_enabled: false,
    country: (p.string("country") ?? "US").toUpperCase(),
    created: state.wallNow(),
    default_currency: (p.string("default_currency") ?? "usd").toLowerCase(),
    details_submitted: false,
    email: p.string("email") ?? null,
    external_accounts: { object: "list", data: [], has_more: false, url: `/v1/accounts/${id}/external_accounts` },
    metadata: p.metadata() ?? {},
    payouts_enabled: false,
    requirements: {
      currently_due: ["business_profile.url", "external_account", "tos_acceptance.date"],
      disabled_reason: "requirements.past_due",
      eventually_due: ["business_profile.url", "external_account", "tos_acceptance.date"],
      past_due: ["business_profile.url", "external_account", "tos_acceptance.date"],
      pending_verification: [],
    },
    type,
  });
}

/** Marks a connected account's onboarding done: charges and payouts enabled, account.updated. */
export function completeOnboarding(state: TwinState, id: string) {
  const account = state.get(null, id, "account", "account");
  const before = clone(account);
  Object.assign(account, {
    charges_enabled: true,
    payouts_enabled: true,
    details_submitted: true,
    capabilities: { card_payments: "active", transfers: "active" },
    requirements: { currently_due: [], disabled_reason: null, eventually_due: [], past_due: [], pending_verification: [] },
  });
  state.emitUpdated(id, "account.updated", before, account);
  return account;
}

/**
 * The account's owner disconnected the platform in Stripe's dashboard: the Connect endpoints get
 * account.application.deauthorized (an application object, with the account in `account`) and every
 * later call for the account is refused as on Stripe (403 account_invalid).
 */
export function deauthorizeAccount(state: TwinState, id: string, announced = true) {
  state.get(null, id, "account", "account");
  if (announced) state.emit(id, "account.application.deauthorized", { id: newId("ca_"), object: "application", name: "SubBridge" });
  state.forget(id);
}

export function createAccountLink(ctx: RequestContext) {
  const { p, state } = ctx;
  const account = state.get(null, p.string("account", true), "account", "account");
  p.oneOf("type", ["account_onboarding", "account_update"] as const, true);
  const returnUrl = p.string("return_url", true);
  const refreshUrl = p.string("refresh_url", true);
  const token = randomBytes(18).toString("base64url");
  const created = state.wallNow();
  state.accountLinks.set(token, { account: account.id, returnUrl, refreshUrl, expiresAt: created + 300, used: false });
  return { object: "account_link", created, expires_at: created + 300, url: `${ctx.baseUrl}/setup/e/${account.id}/${token}` };
}
