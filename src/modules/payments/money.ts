// Amounts in a currency's minor units, written exactly (integer arithmetic, no floating division):
// a leaf the refunds page and the member notices both use, so neither imports the other's area.

/** Digits after the decimal point in `currency`'s minor units (XTR, whole stars: none). */
export function minorDigits(currency: string): number {
  if (currency === "XTR") return 0;
  return new Intl.NumberFormat("en-US", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units as a decimal in the currency's digits, exactly: 1250 USD is "12.50", 250 XTR "250", -5 USD "-0.05". */
export function decimalMinor(amountMinor: number, currency: string): string {
  const digits = minorDigits(currency);
  const sign = amountMinor < 0 ? "-" : "";
  const abs = Math.abs(amountMinor);
  const whole = Math.floor(abs / 10 ** digits);
  const fraction = digits ? `.${String(abs % 10 ** digits).padStart(digits, "0")}` : "";
  return `${sign}${whole}${fraction}`;
}

/** Minor units as a decimal in the currency's digits, with its code: "12.50 USD", "250 XTR". */
export function formatMinor(amountMinor: number, currency: string): string {
  return `${decimalMinor(amountMinor, currency)} ${currency}`;
}
