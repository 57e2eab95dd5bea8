// A project's transactions: written by the server (an access-code redemption records one in the
// transaction that starts its subscription; a provider's payment, refund or dispute one with its
// event, payment.succeeded, payment.refunded, payment.disputed or payment.dispute_closed, which
// never carries the fee nor the net), read through the list.
// REST pages by number; the MCP tool pages by keyset (see transactions.yaml): the same query,
// another window.
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { keysetChunks, newestFirstAfter, sortedPage, type PageWindow } from "../../db/pages.ts";
import type { PlanRow } from "../plans/tables.ts";
import { emitEvent } from "../events/outbox.ts";
import { iso, requireProject } from "../resources/catalog-change.ts";
import { transactionsTable, type TransactionKind, type TransactionRow, type TransactionStatus } from "./tables.ts";

const money = (amount: string | number, currency: string) => ({ amount: Number(amount), currency });

export function presentTransaction(row: TransactionRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    member_id: row.member_id,
    subscription_id: row.subscription_id,
    plan_id: row.plan_id,
    kind: row.kind,
    status: row.status,
    amount: money(row.amount_minor, row.currency),
    list_price: row.list_price_minor === null ? null : money(row.list_price_minor, row.currency),
    fee: money(row.fee_minor, row.currency),
    // Amounts carry no sign (kind gives the direction), so a refund's net is what it took back.
    net: { amount: Number(row.amount_minor) - Number(row.fee_minor), currency: row.currency },
    provider: row.provider,
    payment_method_id: row.payment_method_id,
    provider_reference: row.provider_reference,
    created_at: iso(row.created_at)!,
  };
}

export type Transaction = ReturnType<typeof presentTransaction>;

/** The part of a transaction that says what it was for: a member's subscription to a plan. */
type Subject = { plan: PlanRow; memberId: string; subscriptionId: string };

/** Writes one movement of value of `subject`, now (succeeded unless `movement.status` says otherwise). */
async function insertTransaction(
  ctx: DomainContext,
  subject: { project_id: string; member_id: string; subscription_id: string | null; plan_id: string | null },
  movement: Pick<
    TransactionRow,
    "kind" | "amount_minor" | "currency" | "list_price_minor" | "fee_minor" | "provider" | "payment_method_id" | "provider_reference"
  > & {
    refunded_transaction_id?: string;
    /** succeeded unless said otherwise (a dispute is pending until it is decided). */
    status?: TransactionStatus;
  },
): Promise<TransactionRow> {
  const { project_id, member_id, subscription_id, plan_id } = subject;
  const row = {
    id: randomUUID(),
    project_id,
    member_id,
    subscription_id,
    plan_id,
    ...movement,
    status: movement.status ?? "succeeded",
    created_at: ctx.now,
  };
  await transactionsTable.insert(ctx, { ...row });
  return { ...row, team_id: ctx.actor.teamId, refunded_transaction_id: movement.refunded_transaction_id ?? null };
}

const subjectOf = (input: Subject) => ({
  project_id: input.plan.project_id,
  member_id: input.memberId,
  subscription_id: input.subscriptionId,
  plan_id: input.plan.id,
});

/**
 * A payment, refund or dispute as its events carry it: named fields of the transaction, so neither
 * the fee nor the net that would give it away (rule 8), nor a field added to the API later, goes out.
 */
function paymentSummary(row: TransactionRow) {
  const t = presentTransaction(row);
  return {
    id: t.id,
    project_id: t.project_id,
    member_id: t.member_id,
    subscription_id: t.subscription_id,
    plan_id: t.plan_id,
    kind: t.kind,
    amount: t.amount,
    provider: t.provider,
    provider_reference: t.provider_reference,
    refunded_payment_id: row.refunded_transaction_id ?? null,
    created_at: t.created_at,
  };
}

/** The transaction of an access-code redemption: nothing paid, the plan's price given away. */
export async function recordRedemption(ctx: DomainContext, input: Subject & { accessCodeId: string }): Promise<void> {
  await insertTransaction(ctx, subjectOf(input), {
    kind: "access_code_redemption",
    amount_minor: 0,
    currency: input.plan.currency,
    list_price_minor: input.plan.amount_minor,
    fee_minor: 0,
    provider: "access_code",
    payment_method_id: null,
    provider_reference: input.accessCodeId,
  });
}

/** A payment a provider reported: the amount paid, its fee (kept here, never in an event payload) and the provider's id. */
export async function recordPayment(
  ctx: DomainContext,
  input: Subject & {
    provider: string;
    paymentMethodId: string | null;
    payment: { providerPaymentId: string; amountMinor: number; currency: string; feeMinor: number | null };
  },
): Promise<void> {
  const row = await insertTransaction(ctx, subjectOf(input), {
    kind: "payment",
    amount_minor: input.payment.amountMinor,
    currency: input.payment.currency,
    list_price_minor: input.plan.amount_minor,
    fee_minor: input.payment.feeMinor ?? 0,
    provider: input.provider,
    payment_method_id: input.paymentMethodId,
    provider_reference: input.payment.providerPaymentId,
  });
  await emitEvent(ctx, { type: "payment.succeeded", projectId: row.project_id, data: { payment: paymentSummary(row) } });
}

/**
 * Money a provider gave back for the payment `original`: its own row (kind refund), and the payment
 * marked refunded once the refunds cover it. Returns whether the payment is now wholly refunded.
 */
export async function recordRefund(
  ctx: DomainContext,
  original: TransactionRow,
  refund: { refundId: string; amountMinor: number; currency: string },
): Promise<boolean> {
  const row = await insertTransaction(ctx, original, {
    kind: "refund",
    amount_minor: refund.amountMinor,
    currency: refund.currency,
    list_price_minor: null,
    fee_minor: 0,
    provider: original.provider,
    payment_method_id: original.payment_method_id,
    provider_reference: refund.refundId,
    refunded_transaction_id: original.id,
  });
  await emitEvent(ctx, { type: "payment.refunded", projectId: row.project_id, data: { payment: paymentSummary(row) } });
  const refunds = (await transactionsTable
    .rows(ctx)
    .where({ refunded_transaction_id: original.id, kind: "refund" })
    .sum({ total: "amount_minor" })) as { total: string | number | null }[];
  const refunded = Number(refunds[0]?.total ?? 0) >= Number(original.amount_minor);
  if (refunded) await transactionsTable.rows(ctx).where({ id: original.id }).update({ status: "refunded" });
  return refunded;
}

/** A dispute as we hold it: open while the provider decides, then won (the money stays) or lost (it went back, final). */
export type DisputeStatus = "open" | "won" | "lost";

/** The dispute row's status says whether the money moved back: pending while open, succeeded when lost, failed when won. */
const DISPUTE_ROW_STATUS: Record<DisputeStatus, TransactionStatus> = { open: "pending", lost: "succeeded", won: "failed" };

async function emitDispute(ctx: DomainContext, row: TransactionRow, dispute: { status: DisputeStatus; reason: string | null }) {
  const type = dispute.status === "open" ? "payment.disputed" : "payment.dispute_closed";
  await emitEvent(ctx, { type, projectId: row.project_id, data: { payment: paymentSummary(row), dispute } });
}

/**
 * A dispute of the payment `original`: its own row (kind dispute, naming the payment), with
 * payment.disputed when it opens or payment.dispute_closed when the provider reports it decided
 * before we heard of its opening. The disputed payment itself keeps its status.
 */
export async function recordDispute(
  ctx: DomainContext,
  original: TransactionRow,
  dispute: { disputeId: string; amountMinor: number; currency: string; reason: string | null; status: DisputeStatus },
): Promise<TransactionRow> {
  const row = await insertTransaction(ctx, original, {
    kind: "dispute",
    status: DISPUTE_ROW_STATUS[dispute.status],
    amount_minor: dispute.amountMinor,
    currency: dispute.currency,
    list_price_minor: null,
    fee_minor: 0,
    provider: original.provider,
    payment_method_id: original.payment_method_id,
    provider_reference: dispute.disputeId,
    refunded_transaction_id: original.id,
  });
  await emitDispute(ctx, row, { status: dispute.status, reason: dispute.reason });
  return row;
}

/** Decides an open dispute's row (won or lost) with payment.dispute_closed; false when it was decided already. */
export async function closeDispute(ctx: DomainContext, row: TransactionRow, outcome: "won" | "lost", reason: string | null): Promise<boolean> {
  const status = DISPUTE_ROW_STATUS[outcome];
  const moved = await transactionsTable.rows(ctx).where({ id: row.id, status: "pending" }).update({ status });
  if (!moved) return false;
  await emitDispute(ctx, { ...row, status }, { status: outcome, reason });
  return true;
}

export interface TransactionFilters {
  status?: TransactionStatus;
  kind?: TransactionKind;
  plan_id?: string;
  currency?: string;
  from?: string;
  to?: string;
}

/** The project's transactions matching the filters (from inclusive, to exclusive). */
function matching(ctx: DomainContext, projectId: string, filters: TransactionFilters): Knex.QueryBuilder {
  const q = transactionsTable.rows(ctx).where({ project_id: projectId });
  for (const key of ["status", "kind", "plan_id", "currency"] as const) if (filters[key] !== undefined) q.where(key, filters[key]);
  if (filters.from !== undefined) q.where("created_at", ">=", new Date(filters.from));
  if (filters.to !== undefined) q.where("created_at", "<", new Date(filters.to));
  return q;
}

const SORT: Record<string, string> = { created_at: "created_at", amount: "amount_minor" };

export async function listTransactions(ctx: DomainContext, projectId: string, filters: TransactionFilters, window: PageWindow) {
  await requireProject(ctx, projectId);
  const { rows, total } = await sortedPage<TransactionRow>(matching(ctx, projectId, filters).select("*"), window, SORT);
  return { rows: rows.map(presentTransaction), total };
}

/** A keyset position: the last row's created_at and id, base64url JSON (opaque to the caller). */
function encodeCursor(row: TransactionRow): string {
  return Buffer.from(JSON.stringify([iso(row.created_at), row.id])).toString("base64url");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function decodeCursor(cursor: string): [Date, string] {
  const refused = () => validationFailed({ cursor: ["is not a cursor this list gave; pass meta.next_cursor of the previous result"] });
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw refused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refused();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "string" || typeof parsed[1] !== "string") throw refused();
  const at = new Date(parsed[0]);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== parsed[0] || !UUID.test(parsed[1])) throw refused();
  return [at, parsed[1]];
}

/** One keyset page, newest first (created_at desc, id desc), starting after `cursor`. */
export async function listTransactionsAfter(
  ctx: DomainContext,
  projectId: string,
  filters: TransactionFilters,
  page: { perPage: number; cursor: string | undefined },
) {
  await requireProject(ctx, projectId);
  const after = page.cursor === undefined ? null : decodeCursor(page.cursor);
  const rows = (await newestFirstAfter(matching(ctx, projectId, filters).select("*"), after).limit(page.perPage + 1)) as TransactionRow[];
  const more = rows.length > page.perPage;
  const shown = rows.slice(0, page.perPage);
  return {
    data: shown.map(presentTransaction),
    meta: { per_page: page.perPage, next_cursor: more ? encodeCursor(shown[shown.length - 1]!) : null },
  };
}

/** Every transaction matching the filters, newest first, `size` rows a statement (the export). */
export async function* transactionChunks(ctx: DomainContext, projectId: string, filters: TransactionFilters, size: number) {
  for await (const rows of keysetChunks<TransactionRow>(() => matching(ctx, projectId, filters).select("*"), size))
    yield rows.map(presentTransaction);
}
