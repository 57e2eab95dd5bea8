// The seats of a pass window (issue 46): a plan with windows is bought for one of them, and a
// window of capacity N sells at most N passes. A seat is taken by a paid pass (a completed checkout
// of the window) or held by an open checkout for PASS_SEAT_HOLD_MS; the checkout takes it in the
// transaction that opens it, with the window's row locked, so concurrent buyers are counted one
// after the other. A payment arriving for a checkout whose hold lapsed while the window filled, or
// after the window ended, buys nothing: it is refunded (apply.ts, as a superseded checkout).
import type { Knex } from "knex";
import { ApiError, notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { checkoutsTable, type CheckoutRow } from "../payments/tables.ts";
import { passWindowsTable, type PassWindowRow, type PlanRow } from "../plans/tables.ts";

/** How long an open checkout holds its seat: longer than a member takes to pay, short enough that an abandoned page frees it soon. */
export const PASS_SEAT_HOLD_MS = 3600_000;

/** Checkouts of a window that take a seat at `now`: paid, or open within the hold. */
function seatTaking(query: Knex.QueryBuilder, now: Date): Knex.QueryBuilder {
  return query.where((taking) =>
    taking
      .where({ status: "completed" })
      .orWhere((held) => held.where({ status: "open" }).where("created_at", ">", new Date(now.getTime() - PASS_SEAT_HOLD_MS))),
  );
}

/** Seats taken at `now`, by window id (a window without any is absent). */
export async function seatsTakenBy(ctx: DomainContext, windowIds: string[], now: Date, exceptCheckoutId?: string): Promise<Map<string, number>> {
  if (!windowIds.length) return new Map();
  const query = seatTaking(checkoutsTable.rows(ctx).whereIn("pass_window_id", windowIds), now);
  if (exceptCheckoutId) query.whereNot({ id: exceptCheckoutId });
  const rows = (await query.groupBy("pass_window_id").select("pass_window_id").count({ taken: "*" })) as {
    pass_window_id: string;
    taken: string | number;
  }[];
  return new Map(rows.map((r) => [r.pass_window_id, Number(r.taken)]));
}

/** What the pass-window read adds: seats taken now, and seats left (null for no limit). */
export function seatsOf(window: Pick<PassWindowRow, "capacity">, taken: number) {
  return { seats_taken: taken, seats_left: window.capacity === null ? null : Math.max(0, window.capacity - taken) };
}

const windowFull = (window: PassWindowRow) =>
  new ApiError("PASS_WINDOW_FULL", `Every seat of the pass window "${window.name}" is taken.`, {
    context: { pass_window_id: window.id, capacity: window.capacity },
  });

/**
 * The window a checkout of `plan` is for, locked, with a seat for it (call in the transaction that
 * opens the checkout, after the member's earlier open checkouts are closed: their seats are free).
 * Null for a plan without windows. A plan with windows needs one (422 naming pass_window_id); a
 * window of another plan or team is 404, an ended one 422, a full one PASS_WINDOW_FULL (409).
 */
export async function takeSeat(ctx: DomainContext, plan: PlanRow, windowId: string | null): Promise<PassWindowRow | null> {
  if (!windowId) {
    const any = await passWindowsTable.rows(ctx).where({ plan_id: plan.id }).first("id");
    if (any) throw validationFailed({ pass_window_id: ["is required: this plan is sold as passes for its dated windows"] });
    return null;
  }
  const window = (await passWindowsTable.rows(ctx).where({ id: windowId, plan_id: plan.id }).forUpdate().first()) as PassWindowRow | undefined;
  if (!window) throw notFound("pass window");
  if (new Date(window.ends_at) <= ctx.now) throw validationFailed({ pass_window_id: ["has ended: its passes are no longer sold"] });
  if (window.capacity !== null && ((await seatsTakenBy(ctx, [window.id], ctx.now)).get(window.id) ?? 0) >= window.capacity) throw windowFull(window);
  return window;
}

/**
 * Why a payment for the window checkout `checkout` (locked) buys nothing at `now`, or null when its
 * seat stands: the window has ended, or its hold lapsed and the window filled meanwhile.
 */
export async function seatLost(ctx: DomainContext, checkout: CheckoutRow, window: PassWindowRow, now: Date): Promise<string | null> {
  if (new Date(window.ends_at) <= now) return `the pass window "${window.name}" ended before the payment arrived`;
  const held = checkout.status === "open" && new Date(checkout.created_at).getTime() > now.getTime() - PASS_SEAT_HOLD_MS;
  if (held || window.capacity === null) return null;
  const others = (await seatsTakenBy(ctx, [window.id], now, checkout.id)).get(window.id) ?? 0;
  return others >= window.capacity ? `every seat of the pass window "${window.name}" was taken before the payment arrived` : null;
}

/** The window `id`, locked. */
export async function lockedWindow(ctx: DomainContext, id: string): Promise<PassWindowRow> {
  return (await passWindowsTable.rows(ctx).where({ id }).forUpdate().first()) as PassWindowRow;
}

/** A pass window's refusal in the member's words, or null when `err` is none. */
export function passRefusalText(err: ApiError): string | null {
  if (err.code === "PASS_WINDOW_FULL") return "Every seat of that date is taken. Nothing was charged; pick another date.";
  if (err.code === "VALIDATION_FAILED" && err.fields?.pass_window_id)
    return err.fields.pass_window_id[0]!.startsWith("has ended")
      ? "That date has ended. Nothing was charged; pick another date."
      : "Pick the date you want a pass for. Nothing was charged.";
  if (err.code === "RESOURCE_NOT_FOUND" && err.message.includes("pass window")) return "That date is not sold for this plan. Nothing was charged.";
  return null;
}

/** A window on sale and its seats left (null for no limit). */
export interface WindowOnSale {
  window: PassWindowRow;
  seatsLeft: number | null;
}

/** For each of `planIds` that has windows, those not yet ended (soonest first) with their seats left at `now`; a plan without windows is absent. */
export async function windowsOnSale(ctx: DomainContext, planIds: string[], now: Date): Promise<Map<string, WindowOnSale[]>> {
  if (!planIds.length) return new Map();
  const rows = (await passWindowsTable
    .rows(ctx)
    .whereIn("plan_id", planIds)
    .orderBy([{ column: "starts_at" }, { column: "id" }])) as PassWindowRow[];
  const open = rows.filter((w) => new Date(w.ends_at) > now);
  const taken = await seatsTakenBy(
    ctx,
    open.map((w) => w.id),
    now,
  );
  const byPlan = new Map<string, WindowOnSale[]>(rows.map((w) => [w.plan_id, []]));
  for (const window of open) byPlan.get(window.plan_id)!.push({ window, seatsLeft: seatsOf(window, taken.get(window.id) ?? 0).seats_left });
  return byPlan;
}
