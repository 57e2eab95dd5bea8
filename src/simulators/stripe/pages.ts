// The twin's pages for a person in a browser: Checkout's hosted payment page (the product, the
// amount and a card form) and Connect's onboarding page. Plain HTML with one inline stylesheet
// allowed by its hash, no script and no outside asset; the CSP lets the form post here only and
// the redirect go to the URLs the session names.
import { createHash } from "node:crypto";
import { escape } from "html-escaper";
import type { SessionLine, StripeObject } from "./state.ts";

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1f36;background:#f6f8fa}
main{display:flex;flex-wrap:wrap;gap:32px;max-width:920px;margin:0 auto;padding:32px 20px}
section{flex:1 1 320px;min-width:0}
h1,h2{font-size:1.25rem;margin:0 0 4px}
.merchant{color:#4f566b;margin:0 0 16px}
.amount{font-size:2rem;font-weight:600;margin:0}
.detail{color:#4f566b;margin:4px 0 16px;overflow-wrap:anywhere}
ul{list-style:none;padding:0;margin:0 0 16px}
li{display:flex;justify-content:space-between;gap:12px;padding:8px 0;border-bottom:1px solid #e3e8ee;overflow-wrap:anywhere}
form{background:#fff;border:1px solid #e3e8ee;border-radius:8px;padding:20px}
label{display:block;font-weight:500;margin:12px 0 4px}
input{width:100%;font:inherit;padding:10px;border:1px solid #a3acb9;border-radius:6px}
input:focus{outline:3px solid #635bff;outline-offset:1px}
.row{display:flex;gap:12px}.row>div{flex:1;min-width:0}
button{width:100%;margin-top:20px;font:inherit;font-weight:600;padding:12px;border:0;border-radius:6px;background:#635bff;color:#fff;cursor:pointer}
button:focus{outline:3px solid #1a1f36;outline-offset:2px}
.error{color:#b3093c;background:#fff0f3;border:1px solid #f5a3b8;border-radius:6px;padding:10px;margin:0 0 12px}
.hint{color:#4f566b;font-size:.875rem;margin:12px 0 0}
a{color:#4b44d6}
`;
const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

/** The page's Content-Security-Policy: the twin's own style, forms to this host, redirects to `targets`. */
export function pageCsp(targets: (string | null)[]): string {
  const origins = [
    ...new Set(
      targets.flatMap((t) => {
        try {
          return t ? [new URL(t).origin] : [];
        } catch {
          return [];
        }
      }),
    ),
  ];
  return `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; form-action 'self' ${origins.join(" ")}; frame-ancestors 'none'; base-uri 'none'`.replace(
    / +;/g,
    ";",
  );
}

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escape(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** Minor units as the currency writes them (`$19.00`, `¥500`). */
export function money(amount: number, currency: string): string {
  const format = new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() });
  return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

function cadence(price: StripeObject): string {
  const recurring = price.recurring as { interval: string; interval_count: number } | null;
  if (!recurring) return "";
  return recurring.interval_count === 1 ? ` per ${recurring.interval}` : ` every ${recurring.interval_count} ${recurring.interval}s`;
}

export interface CheckoutView {
  session: StripeObject;
  lines: SessionLine[];
  productNames: Map<string, string>;
  merchant: string;
  /** What was typed, kept when the form is shown again with an error. */
  values?: Record<string, string>;
  error?: { message: string; field: string };
}

export function checkoutPage(view: CheckoutView): string {
  const { session, lines, error, values = {} } = view;
  const trial = (session.subscription_data as { trial_period_days: number | null } | null)?.trial_period_days ?? null;
  const currency = session.currency as string;
  const first = lines[0]!;
  const summary = trial
    ? `${trial} days free, then ${money(session.amount_total as number, currency)}${cadence(first.price)}`
    : `${money(session.amount_total as number, currency)}${cadence(first.price)}`;
  const items = lines
    .map(
      (l) =>
        `<li><span>${escape(view.productNames.get(l.price.product as string) ?? "")}${l.quantity > 1 ? ` × ${l.quantity}` : ""}</span><span>${escape(money((l.price.unit_amount as number) * l.quantity, currency))}${escape(cadence(l.price))}</span></li>`,
    )
    .join("");
  const discount = (session.total_details as { amount_discount: number }).amount_discount;
  const field = (name: string, label: string, attrs: string) => {
    const invalid = error?.field === name;
    return `<label for="${name}">${label}</label><input id="${name}" name="${name}" ${attrs} value="${escape(values[name] ?? "")}"${invalid ? ` aria-invalid="true" aria-describedby="form-error"` : ""}>`;
  };
  const needsEmail = !session.customer && !session.customer_email;
  const action = trial ? "Start trial" : session.mode === "subscription" ? `Subscribe` : `Pay ${money(session.amount_total as number, currency)}`;
  const body = `
<section aria-labelledby="order">
  <p class="merchant">${escape(view.merchant)}</p>
  <h1 id="order">${escape(view.productNames.get(first.price.product as string) ?? "Order")}</h1>
  <p class="amount">${escape(summary)}</p>
  ${session.customer_email ? `<p class="detail">For ${escape(session.customer_email as string)}</p>` : ""}
  <ul aria-label="Items">${items}${discount ? `<li><span>Discount</span><span>−${escape(money(discount, currency))}</span></li>` : ""}<li><strong>Total due today</strong><strong>${escape(money(trial ? 0 : (session.amount_total as number), currency))}</strong></li></ul>
  ${session.cancel_url ? `<p><a href="${escape(session.cancel_url as string)}">Cancel and go back</a></p>` : ""}
</section>
<section aria-labelledby="pay">
  <form method="post" novalidate>
    <h2 id="pay">Pay with card</h2>
    ${error ? `<p class="error" id="form-error" role="alert">${escape(error.message)}</p>` : ""}
    ${needsEmail ? field("email", "Email", `type="email" autocomplete="email" required`) : ""}
    ${field("cardnumber", "Card number", `inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234" required`)}
    <div class="row"><div>${field("exp", "Expiry (MM / YY)", `autocomplete="cc-exp" placeholder="MM / YY" required`)}</div><div>${field("cvc", "CVC", `inputmode="numeric" autocomplete="cc-csc" placeholder="123" required`)}</div></div>
    ${field("name", "Name on card", `autocomplete="cc-name"`)}
    ${session.allow_promotion_codes && !discount ? field("promotion_code", "Promotion code (optional)", `autocomplete="off"`) : ""}
    <button type="submit">${escape(action)}</button>
    <p class="hint">Simulated Stripe: test card 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined.</p>
  </form>
</section>`;
  return layout(`Pay ${view.merchant}`, body);
}

/** The page of a session that can no longer be paid. */
export function closedPage(session: StripeObject): string {
  const text = session.status === "complete" ? "This checkout is already paid." : "This checkout has expired.";
  return layout(
    text,
    `<section><h1>${escape(text)}</h1>${session.cancel_url ? `<p><a href="${escape(session.cancel_url as string)}">Go back</a></p>` : ""}</section>`,
  );
}

export function onboardingPage(account: StripeObject, platform: string): string {
  const email = (account.email as string | null) ?? "";
  return layout(
    "Set up payments",
    `<section><p class="merchant">${escape(platform)} uses Stripe to pay out to you.</p><h1>Set up payments</h1>
<p class="detail">Simulated Stripe onboarding for account ${escape(account.id)}${email ? ` (${escape(email)})` : ""}: submitting completes it, with card payments and payouts enabled.</p>
<form method="post"><button type="submit">Agree and submit</button></form></section>`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<section><h1>${escape(title)}</h1><p>${escape(text)}</p></section>`);
}
