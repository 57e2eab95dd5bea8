// export_transactions: the project's transactions matching the list's filters as a CSV download,
// read 1,000 rows a statement by keyset: money in major units (the currency's digits) and in exact
// minor units, with the currency.
import type { FileBody } from "../../../generated/operations.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { csvFile, csvFilename, type CsvColumn } from "../exports/csv-file.ts";
import { decimalMinor } from "../payments/money.ts";
import { visibleProjectHandle } from "../projects/tables.ts";
import { transactionChunks, type Transaction, type TransactionFilters } from "./transactions.ts";

const EXPORT_CHUNK = 1000;

type Money = { amount: number; currency: string } | null;

/** A money field as two columns: `<name>` (major units, "12.50") and `<name>_minor` (1250). */
function moneyColumns(name: string, of: (t: Transaction) => Money): CsvColumn<Transaction>[] {
  return [
    { header: name, cell: (t) => (of(t) ? decimalMinor(of(t)!.amount, of(t)!.currency) : null) },
    { header: `${name}_minor`, cell: (t) => of(t)?.amount ?? null },
  ];
}

const COLUMNS: readonly CsvColumn<Transaction>[] = [
  { header: "id", cell: (t) => t.id },
  { header: "created_at", cell: (t) => t.created_at },
  { header: "kind", cell: (t) => t.kind },
  { header: "status", cell: (t) => t.status },
  { header: "currency", cell: (t) => t.amount.currency },
  ...moneyColumns("amount", (t) => t.amount),
  ...moneyColumns("fee", (t) => t.fee),
  ...moneyColumns("net", (t) => t.net),
  ...moneyColumns("list_price", (t) => t.list_price),
  { header: "member_id", cell: (t) => t.member_id },
  { header: "subscription_id", cell: (t) => t.subscription_id },
  { header: "plan_id", cell: (t) => t.plan_id },
  { header: "provider", cell: (t) => t.provider },
  { header: "payment_method_id", cell: (t) => t.payment_method_id },
  { header: "provider_reference", cell: (t) => t.provider_reference },
];

export async function exportTransactions(ctx: DomainContext, projectId: string, filters: TransactionFilters): Promise<FileBody> {
  const handle = await visibleProjectHandle(ctx, projectId);
  return csvFile(csvFilename(handle, "transactions", ctx.now), COLUMNS, transactionChunks(ctx, projectId, filters, EXPORT_CHUNK));
}
