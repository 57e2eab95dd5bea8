// Telegram Stars in the bot's updates (issue 33): a pre_checkout_query is answered by whether the
// checkout its invoice names may be paid now (Telegram charges only after an ok, and waits 10 s);
// a successful_payment or refunded_payment is applied once as a provider event. A payment that
// completes a checkout syncs the member's platform access at once (the connector sweep retries),
// and a payment made while another subscription was already live is refunded at once. An
// installation whose accept_stars is off declines every query (an invoice made before the switch).
import type { Logger } from "pino";
import { installationSession } from "../../modules/connectors/bot/session.ts";
import type { InstallationRow } from "../../modules/connectors/tables.ts";
import { payableCheckout } from "../../modules/payments/checkouts.ts";
import { applyProviderEvents } from "../../modules/payments/outcome.ts";
import { providerRegistry } from "../../modules/payments/providers.ts";
import { answerPreCheckout, type PreCheckoutQuery } from "../../modules/payments/stars/pre-checkout.ts";
import { parseStarsUpdate } from "../../modules/payments/stars/updates.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";
import { starsAccepted } from "../../modules/connectors/bot/start.ts";
import { installationTexts } from "../../modules/connectors/bot/texts.ts";

/** The answer to an invoice made before the installation's accept_stars was switched off. */
export const STARS_OFF = "This bot does not take Telegram Stars any more. Nothing was charged.";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether the query has the fields the answer needs (anything else is not Telegram's and is ignored). */
function isPreCheckoutQuery(v: unknown): v is PreCheckoutQuery {
  return (
    isObject(v) &&
    typeof v.id === "string" &&
    isObject(v.from) &&
    Number.isSafeInteger(v.from.id) &&
    typeof v.currency === "string" &&
    Number.isSafeInteger(v.total_amount) &&
    typeof v.invoice_payload === "string"
  );
}

/** Handles the update when it is about a payment; false when it is not (the caller goes on). */
export async function telegramPayments(
  deps: PipelineDeps & { logger: Logger },
  installation: InstallationRow,
  update: unknown,
  now: Date,
): Promise<boolean> {
  if (!isObject(update)) return false;
  const session = installationSession(deps, installation);
  if (isPreCheckoutQuery(update.pre_checkout_query)) {
    if (!session.payments) return true;
    const answer = await answerPreCheckout(
      session.payments,
      update.pre_checkout_query,
      async (query) => {
        if (!starsAccepted(installation)) {
          const language = (update.pre_checkout_query as { from: { language_code?: unknown } }).from.language_code;
          const texts = installationTexts(deps.connectors.packages, installation, typeof language === "string" ? language : null);
          return { ok: false as const, reason: texts.t(STARS_OFF) };
        }
        return payableCheckout(
          deps.db,
          {
            reference: query.invoice_payload,
            teamId: installation.team_id,
            projectId: installation.project_id,
            connectorKey: "telegram",
            externalUserId: String(query.from.id),
            amountMinor: query.total_amount,
            currency: query.currency,
          },
          now,
        );
      },
      { logger: deps.logger },
    );
    deps.logger.info({ installation_id: installation.id, ok: answer.ok }, "stars pre-checkout answered");
    return true;
  }
  const events = parseStarsUpdate(update, installation.id);
  if (events.length === 0) return false;
  // Only Stars refunds go through this registry (the superseded payment's method is the installation's telegram_stars one).
  const registry = providerRegistry({ db: deps.db, stripe: null, connectors: deps });
  await applyProviderEvents({ ...deps, registry }, events, now, { provider: "telegram_stars", log: { installation_id: installation.id } });
  return true;
}
