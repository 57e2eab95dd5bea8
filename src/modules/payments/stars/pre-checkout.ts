// The bot's answer to a pre_checkout_query: Telegram charges a Stars payment only after the bot
// answers ok, and gives up after 10 s, so the answer is decided by the domain's check (the checkout
// still open, the member allowed to buy) and sent within a bound, declining when the check is late.
import type { Logger } from "pino";
import type { PlatformPayments } from "../../connectors/drivers/driver.ts";
import { withTimeout } from "../../../observability/readiness.ts";

/** The Bot API's PreCheckoutQuery, as far as Stars go. */
export interface PreCheckoutQuery {
  id: string;
  from: { id: number };
  currency: string;
  total_amount: number;
  invoice_payload: string;
}

/** The domain's verdict on a query: the checkout its payload names, for the payer, at the amount and currency asked. */
export type PreCheckoutCheck = (query: PreCheckoutQuery) => Promise<{ ok: true } | { ok: false; reason: string }>;
export type PreCheckoutAnswer = { ok: true } | { ok: false; errorMessage: string };

/** Telegram waits 10 s for the answer; the check gets 8 of them so the answer itself still arrives in time. */
export const PRE_CHECKOUT_DECIDE_MS = 8_000;

/** What the member reads when the check failed for a reason of ours rather than theirs. */
const TRY_AGAIN = "The payment could not be confirmed just now. Nothing was charged; please try again.";

/** The answer to `query`: ok only for a Stars query the check accepts; a refusal carries the check's reason for the member. */
export async function decidePreCheckout(query: PreCheckoutQuery, check: PreCheckoutCheck): Promise<PreCheckoutAnswer> {
  if (query.currency !== "XTR") return { ok: false, errorMessage: "This bot takes payments in Telegram Stars only." };
  const verdict = await check(query);
  // Telegram refuses an empty error_message: a refusal always says something.
  return verdict.ok ? { ok: true } : { ok: false, errorMessage: verdict.reason.trim() || TRY_AGAIN };
}

/**
 * Decides and answers `query` through the bot: a check that throws or takes longer than `decideWithinMs`
 * declines (nothing is charged) rather than letting Telegram's 10 s run out in silence. Returns the answer
 * decided; one Telegram does not take is logged, never thrown (the query cannot be answered again).
 */
export async function answerPreCheckout(
  payments: Pick<PlatformPayments, "answerPreCheckoutQuery">,
  query: PreCheckoutQuery,
  check: PreCheckoutCheck,
  options: { decideWithinMs?: number; logger?: Logger } = {},
): Promise<PreCheckoutAnswer> {
  const deciding = withTimeout(decidePreCheckout(query, check), options.decideWithinMs ?? PRE_CHECKOUT_DECIDE_MS, "The pre-checkout check");
  const answer = await deciding.catch((err: Error): PreCheckoutAnswer => {
    options.logger?.warn({ pre_checkout_query_id: query.id, err: err.message }, "pre-checkout check failed; the payment was declined");
    return { ok: false, errorMessage: TRY_AGAIN };
  });
  try {
    await payments.answerPreCheckoutQuery(query.id, answer);
  } catch (err) {
    // Telegram refused the answer (a query too old or unknown) or was unreachable: nothing is charged, and the update is read.
    options.logger?.warn({ pre_checkout_query_id: query.id, err: (err as Error).message }, "pre-checkout answer not taken by Telegram");
  }
  return answer;
}
