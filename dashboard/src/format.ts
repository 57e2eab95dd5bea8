// Money is integers in minor units (the API's Money): shown in major units with the currency's own
// number of decimals; Telegram Stars (XTR) are whole stars.
export interface Money {
  amount: number;
  currency: string;
}

export function decimalsOf(currency: string): number {
  if (currency === "XTR") return 0;
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function formatMoney(money: Money | null | undefined): string {
  if (!money) return "—";
  if (money.currency === "XTR") return `${money.amount} Stars`;
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: money.currency }).format(money.amount / 10 ** decimalsOf(money.currency));
  } catch {
    return `${(money.amount / 100).toFixed(2)} ${money.currency}`;
  }
}

/** "9.00" in USD → 900; null when it is not a price in that currency (too many decimals, not a number). */
export function parseMajor(text: string, currency: string): number | null {
  const decimals = decimalsOf(currency);
  const match = /^\s*(\d{1,9})(?:[.,](\d*))?\s*$/.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) return null;
  return Number(match[1]) * 10 ** decimals + Number(fraction.padEnd(decimals, "0") || "0");
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return "—";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString("en", { dateStyle: "medium", timeStyle: "short" });
}

const CYCLES: Record<string, [string, string]> = {
  day: ["day", "days"],
  week: ["week", "weeks"],
  month: ["month", "months"],
  year: ["year", "years"],
};

/** "$9.00 every month", as the portal says it. */
export function formatPrice(price: Money, cycle: string, count = 1): string {
  if (cycle === "lifetime") return `${formatMoney(price)} once`;
  const [one, many] = CYCLES[cycle] ?? [cycle, cycle];
  return `${formatMoney(price)} every ${count === 1 ? one : `${count} ${many}`}`;
}
