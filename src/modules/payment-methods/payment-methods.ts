// A project's payment methods: how it is paid (Stripe and Telegram Stars methods take payments
// through src/modules/payments; the other providers are configuration records).
// The currencies and billing cycles of the enabled ones decide which plans can be published.
// Creating one is "Coming" in the ability catalog: the creator's Payments page (the connection
// flow, src/modules/payments/connections.ts) calls createPaymentMethod; the API lists, reads,
// changes and deletes them.
import { randomUUID } from "node:crypto";
import { notFound, validationFailed, emptyFieldErrors, addFieldError, type FieldErrors } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { iso, recordCatalogChange, requireProject } from "../resources/catalog-change.ts";
import { paymentMethodsTable, type PaymentMethodRow } from "./tables.ts";

export const PROVIDERS = ["stripe", "paypal", "razorpay", "paystack", "coinpayments", "telegram_stars", "access_codes"] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Telegram Stars: not ISO 4217, the code Telegram's Bot API uses; amounts are whole stars. */
export const STARS_CURRENCY = "XTR";

const CURRENCIES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf("currency"), STARS_CURRENCY]);

/** Messages for `codes` that are neither ISO 4217 currencies nor XTR (Telegram Stars), under `field`. */
export function currencyErrors(fields: FieldErrors, field: string, codes: readonly string[]): FieldErrors {
  for (const code of codes)
    if (!CURRENCIES.has(code)) addFieldError(fields, field, `${code} is not an ISO 4217 currency code (nor XTR, Telegram Stars)`);
  return fields;
}

export function presentPaymentMethod(row: PaymentMethodRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    provider: row.provider as Provider,
    name: row.name,
    mode: row.mode,
    enabled: row.enabled,
    currencies: [...row.currencies],
    billing_cycles: [...row.billing_cycles] as ("day" | "week" | "month" | "year" | "lifetime")[],
    has_credentials: row.credentials !== null,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type PaymentMethod = ReturnType<typeof presentPaymentMethod>;

async function methodById(ctx: DomainContext, projectId: string, id: string): Promise<PaymentMethodRow> {
  const row = (await paymentMethodsTable.rows(ctx).where({ id, project_id: projectId }).first()) as PaymentMethodRow | undefined;
  if (!row) throw notFound("payment method");
  return row;
}

/** The project's enabled methods (what publishing a plan checks). */
export async function enabledPaymentMethods(ctx: DomainContext, projectId: string): Promise<PaymentMethod[]> {
  const rows = (await paymentMethodsTable.rows(ctx).where({ project_id: projectId, enabled: true }).select("*")) as PaymentMethodRow[];
  return rows.map(presentPaymentMethod);
}

const SORT: Record<string, string> = { created_at: "created_at", name: "lower(name)", provider: "provider" };

export async function listPaymentMethods(ctx: DomainContext, projectId: string, window: PageWindow) {
  await requireProject(ctx, projectId);
  const { rows, total } = await sortedPage<PaymentMethodRow>(
    paymentMethodsTable.rows(ctx).where({ project_id: projectId }).select("*"),
    window,
    SORT,
  );
  return { rows: rows.map(presentPaymentMethod), total };
}

export async function getPaymentMethod(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  return presentPaymentMethod(await methodById(ctx, projectId, id));
}

export interface PaymentMethodSettings {
  name?: string;
  mode?: "live" | "test";
  enabled?: boolean;
  currencies?: string[];
  billing_cycles?: string[];
}

/** An enabled method supports at least one currency and one cycle; every currency is ISO 4217. */
function checkSettings(provider: string, next: Required<PaymentMethodSettings>): void {
  const fields = currencyErrors(emptyFieldErrors(), "currencies", next.currencies);
  // Stars are sold only by Telegram, and Telegram sells nothing else.
  if (provider === "telegram_stars" && next.currencies.some((c) => c !== STARS_CURRENCY))
    addFieldError(fields, "currencies", "Telegram Stars is paid in stars: its only currency is XTR");
  if (provider !== "telegram_stars" && next.currencies.includes(STARS_CURRENCY))
    addFieldError(fields, "currencies", "XTR (Telegram Stars) is taken only by the telegram_stars method");
  if (next.enabled && next.currencies.length === 0) addFieldError(fields, "currencies", "an enabled method supports at least one currency");
  if (next.enabled && next.billing_cycles.length === 0)
    addFieldError(fields, "billing_cycles", "an enabled method supports at least one billing cycle");
  if (Object.keys(fields).length) throw validationFailed(fields);
}

/**
 * Sets up a provider for a project: what the connection flow (and tests) call, since
 * the API's create ability is Coming. `sealedCredentials` is already encrypted by the caller.
 */
export async function createPaymentMethod(
  ctx: DomainContext,
  projectId: string,
  input: Required<Pick<PaymentMethodSettings, "currencies" | "billing_cycles">> &
    PaymentMethodSettings & { provider: Provider; sealedCredentials?: string | null },
) {
  await requireProject(ctx, projectId);
  const settings = {
    name: input.name ?? input.provider,
    mode: input.mode ?? "live",
    enabled: input.enabled ?? true,
    currencies: input.currencies,
    billing_cycles: input.billing_cycles,
  };
  checkSettings(input.provider, settings);
  const row = {
    id: randomUUID(),
    project_id: projectId,
    provider: input.provider,
    ...settings,
    credentials: input.sealedCredentials ?? null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await paymentMethodsTable.insert(ctx, { ...row, currencies: JSON.stringify(row.currencies), billing_cycles: JSON.stringify(row.billing_cycles) });
  const method = presentPaymentMethod({ ...row, team_id: ctx.actor.teamId } as PaymentMethodRow);
  await recordMethodChange(ctx, method, "created");
  return method;
}

export async function updatePaymentMethod(ctx: DomainContext, projectId: string, id: string, input: PaymentMethodSettings) {
  await requireProject(ctx, projectId);
  const row = await methodById(ctx, projectId, id);
  const next = { ...row, ...input, updated_at: ctx.now } as PaymentMethodRow;
  checkSettings(row.provider, next);
  const changes: Record<string, unknown> = { updated_at: ctx.now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.mode !== undefined) changes.mode = input.mode;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.currencies !== undefined) changes.currencies = JSON.stringify(input.currencies);
  if (input.billing_cycles !== undefined) changes.billing_cycles = JSON.stringify(input.billing_cycles);
  await paymentMethodsTable.rows(ctx).where({ id }).update(changes);
  const method = presentPaymentMethod(next);
  await recordMethodChange(ctx, method, "updated");
  return method;
}

export async function deletePaymentMethod(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const row = await methodById(ctx, projectId, id);
  await paymentMethodsTable.rows(ctx).where({ id }).delete();
  await recordMethodChange(ctx, presentPaymentMethod(row), "deleted");
}

/** Payment methods have no activity subject of their own: their entries are the project's. */
function recordMethodChange(ctx: DomainContext, method: PaymentMethod, action: "created" | "updated" | "deleted") {
  return recordCatalogChange(ctx, { entity: "payment_method", action, label: method.name, shown: method, subject: ["project", method.project_id] });
}
