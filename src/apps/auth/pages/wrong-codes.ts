// The limit on wrong second-factor codes: 5 per creator per 15 minutes, whatever the session (the
// sign-in step and turning the app off both count). Only wrong codes are counted, so a creator who
// signs in often is never held up; the count is read before a code is checked and raised after a
// wrong one.
import type { AuthDeps } from "../deps.ts";
import { consumeBudget, peekBudget, type Window } from "../../../pipeline/rate-limit.ts";
import { PageError } from "./page-error.ts";

export const WRONG_CODES_PER_USER: readonly Window[] = [{ name: "two-factor-user", limit: 5, windowMs: 15 * 60_000 }];

const subject = (userId: string) => `two-factor:${userId}`;

function tooManyWrongCodes(retryAfter: number): PageError {
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  return new PageError(429, `Too many wrong codes for this account. Wait ${minutes} minute${minutes === 1 ? "" : "s"}, then try again.`, {
    "Retry-After": String(retryAfter),
  });
}

/** Refuses (429) before a code is checked when the creator's wrong codes are spent. */
export async function refuseWhenWrongCodesSpent(deps: Pick<AuthDeps, "kv" | "now">, userId: string): Promise<void> {
  const state = await peekBudget(deps.kv, subject(userId), WRONG_CODES_PER_USER, deps.now().getTime());
  if (state.retryAfter !== null) throw tooManyWrongCodes(state.retryAfter);
}

export async function countWrongCode(deps: Pick<AuthDeps, "kv" | "now">, userId: string): Promise<void> {
  await consumeBudget(deps.kv, subject(userId), WRONG_CODES_PER_USER, deps.now().getTime());
}
