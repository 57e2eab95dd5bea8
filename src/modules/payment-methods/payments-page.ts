// Where a creator turns a project's payment methods on: the dashboard's payments page, which also
// starts Stripe's onboarding (a browser flow no API call can do). An agent that meets
// PAYMENT_METHOD_NOT_CONFIGURED hands its human this one link, then tries again.
import { ApiError } from "../../errors.ts";

/** The public addresses the link is built from (DASHBOARD_URL; AUTH_URL when no dashboard is configured). */
export interface PaymentsPageLinks {
  dashboardUrl?: string | null;
  authUrl: string;
}

/** The project's payments page: the dashboard's, or the account's payments page on the auth host without a dashboard. */
export function projectPaymentsPage(links: PaymentsPageLinks, projectId: string): string {
  return paymentsPageOf(links, encodeURIComponent(projectId));
}

/** The page's address with a placeholder where the project's id goes (tool descriptions: "{project}"). */
export const paymentsPageTemplate = (links: PaymentsPageLinks): string => paymentsPageOf(links, "{project}");

function paymentsPageOf(links: PaymentsPageLinks, id: string): string {
  if (links.dashboardUrl) return `${links.dashboardUrl.replace(/\/+$/, "")}/projects/${id}/payments`;
  return `${links.authUrl.replace(/\/+$/, "")}/payments?project=${id}#project-${id}`;
}

/** The refusal to publish without a payment method, naming the page that fixes it. */
export function paymentMethodNotConfigured(projectId: string, paymentsPage: string | null): ApiError {
  if (!paymentsPage) return new ApiError("PAYMENT_METHOD_NOT_CONFIGURED", "The project has no enabled payment method.");
  return new ApiError("PAYMENT_METHOD_NOT_CONFIGURED", `The project has no enabled payment method; a creator enables one at ${paymentsPage}.`, {
    remediation: `Hand the creator this link: ${paymentsPage} (they connect Stripe or turn a payment method on there; Stripe's onboarding starts from that page), then publish the plan again once list_payment_methods shows an enabled method.`,
    context: { project_id: projectId, payments_url: paymentsPage },
  });
}
