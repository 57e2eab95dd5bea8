// What the transactions and analytics tests share: transactions written straight into the table
// (payments, refunds and disputes without a payment provider's report), at chosen times.
import { randomUUID } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import type { Redemption } from "../../../src/modules/access-codes/redeem.ts";

export interface SeededTransaction {
  kind?: "access_code_redemption" | "payment" | "refund" | "dispute";
  status?: "pending" | "succeeded" | "failed" | "refunded";
  amount?: number;
  fee?: number;
  currency?: string;
  provider?: string;
  planId?: string | null;
  at?: Date;
}

/** A transaction of the member and subscription `of` redeemed into (its project, plan and team). */
export async function seedTransaction(creator: TestCreator, of: Redemption, t: SeededTransaction = {}): Promise<string> {
  const { db } = await testDatabase();
  const id = randomUUID();
  await db("transactions").insert({
    id,
    team_id: creator.teamId,
    project_id: of.subscription.project_id,
    member_id: of.member.id,
    subscription_id: of.subscription.id,
    plan_id: t.planId === undefined ? of.subscription.plan_id : t.planId,
    kind: t.kind ?? "payment",
    status: t.status ?? "succeeded",
    amount_minor: t.amount ?? 500,
    currency: t.currency ?? "USD",
    list_price_minor: 500,
    fee_minor: t.fee ?? 0,
    provider: t.provider ?? "stripe",
    payment_method_id: null,
    provider_reference: `ch_${id.slice(0, 8)}`,
    created_at: t.at ?? new Date(),
  });
  return id;
}
