// What the payments page shows for a project (./payments-pages.ts): its methods with the turn
// off/on and remove buttons the creator's place allows, the Connect Stripe form (currencies to
// take; "continue" while a connection is pending; "again" once Stripe refused the account of the
// project's Stripe method) and Enable Telegram Stars.
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import type { PaymentMethod } from "../../../modules/payment-methods/payment-methods.ts";
import type { ConnectionRow } from "../../../modules/payments/tables.ts";
import { csrfField } from "./csrf.ts";
import { html, type Html } from "./html.ts";

export interface ProjectView {
  id: string;
  name: string;
  methods: PaymentMethod[];
  pendingStripe: ConnectionRow | null;
  /** Stripe methods whose account Stripe no longer accepts (no connection stands behind them). */
  endedStripe: ReadonlySet<string>;
  stripeCurrencies: string[];
  hasBot: boolean;
  /** The methods' abilities, and payment:view-any for the project's payments (refunds-pages.ts). */
  may: Record<"create" | "update" | "delete" | "viewPayments", boolean>;
}

/** A Stripe method that is off because Stripe no longer accepts its account: only a new connection can take card payments. */
const ended = (project: ProjectView, method: PaymentMethod) => !method.enabled && project.endedStripe.has(method.id);

const PROVIDER_NAMES: Record<string, string> = { stripe: "Stripe", telegram_stars: "Telegram Stars", access_codes: "Access codes", paypal: "PayPal" };

function methodItem(ctx: Koa.Context, project: ProjectView, method: PaymentMethod): Html {
  const provider = PROVIDER_NAMES[method.provider] ?? method.provider;
  const base = `/payments/projects/${project.id}/methods/${method.id}`;
  const refused = ended(project, method);
  const actions = [
    project.may.update && !refused
      ? html`<form method="post" action="${base}/${method.enabled ? "disable" : "enable"}">
          ${csrfField(ctx)}<button type="submit" class="secondary" aria-label="${method.enabled ? "Turn off" : "Turn on"} ${method.name}">
            ${method.enabled ? "Turn off" : "Turn on"}
          </button>
        </form>`
      : "",
    project.may.delete
      ? html`<form method="post" action="${base}/remove">
          ${csrfField(ctx)}<button type="submit" class="danger" aria-label="Remove ${method.name}">Remove</button>
        </form>`
      : "",
  ];
  return html`<li class="payment-method">
    <p>
      <strong>${method.name}</strong> <span class="badge">${method.enabled ? "On" : "Off"}</span> <span class="badge">${method.mode}</span><br />
      ${[provider, method.currencies.join(", "), method.billing_cycles.join(", ")].filter(Boolean).join(" · ")}
    </p>
    ${refused ? html`<p class="hint">Stripe no longer accepts this method's Stripe account, so it cannot be turned on.</p>` : ""}
    ${project.may.update || project.may.delete ? html`<div class="actions field">${actions}</div>` : ""}
  </li>`;
}

function connectStripeForm(ctx: Koa.Context, deps: AuthDeps, project: ProjectView): Html {
  const stripeMethods = project.methods.filter((m) => m.provider === "stripe");
  if (stripeMethods.some((m) => !ended(project, m))) return html``;
  const again = stripeMethods.length > 0;
  if (!deps.stripe)
    return html`<p class="hint">
      This deployment takes no payments by Stripe, so there is nothing to connect (its operator sets STRIPE_SECRET_KEY).
    </p>`;
  if (!project.may.create) return html``;
  const pending = project.pendingStripe;
  return html`<form method="post" action="/payments/projects/${project.id}/stripe" class="stack">
    ${csrfField(ctx)}
    ${
      pending
        ? html`<p>You started connecting Stripe; Stripe has not finished setting up the account yet.</p>`
        : again
          ? html`<p>
              Stripe no longer accepts the account of this project's Stripe method. Connecting again makes a new connection, with a new Stripe
              account.
            </p>`
          : ""
    }
    <p class="field">
      <label for="currencies-${project.id}">Currencies to take</label>
      <span class="hint" id="currencies-${project.id}-hint">ISO 4217 codes separated by commas, for example USD, EUR.</span>
      <input
        id="currencies-${project.id}"
        name="currencies"
        type="text"
        value="${project.stripeCurrencies.join(", ")}"
        required
        aria-describedby="currencies-${project.id}-hint"
      />
    </p>
    <div class="actions field">
      <button type="submit">${pending ? "Continue Stripe onboarding" : again ? "Connect Stripe again" : "Connect Stripe"}</button>
    </div>
  </form>`;
}

function starsControl(ctx: Koa.Context, project: ProjectView): Html {
  if (project.methods.some((m) => m.provider === "telegram_stars") || !project.may.create) return html``;
  if (!project.hasBot) return html`<p class="hint">Telegram Stars needs the project's Telegram bot installed.</p>`;
  return html`<form method="post" action="/payments/projects/${project.id}/stars" class="field">
    ${csrfField(ctx)}
    <span class="hint">Members pay in Telegram with Stars (XTR) through the project's bot.</span>
    <div><button type="submit" class="secondary">Enable Telegram Stars</button></div>
  </form>`;
}

export function projectSection(ctx: Koa.Context, deps: AuthDeps, project: ProjectView): Html {
  const heading = `project-${project.id}`;
  return html`<section aria-labelledby="${heading}">
    <h2 id="${heading}">${project.name}</h2>
    ${
      project.methods.length
        ? html`<ul class="plain payment-methods">
            ${project.methods.map((m) => methodItem(ctx, project, m))}
          </ul>`
        : html`<p>No payment methods yet: members cannot pay for this project's plans.</p>`
    }
    ${connectStripeForm(ctx, deps, project)} ${starsControl(ctx, project)}
    ${project.may.viewPayments ? html`<p><a href="/payments/projects/${project.id}/payments">Recent payments and refunds</a></p>` : ""}
  </section>`;
}
