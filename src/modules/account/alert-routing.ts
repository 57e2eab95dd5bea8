// Where a creator alert goes (rule 5 of the description), decided in one place. Classes: sales,
// support, recovery, billing, security, passes, onboarding; recovery, billing and security are
// critical. With no destination rows the default routing applies: every class to the primary
// connected account, critical classes also to email. With rows: every connected account routed to
// the class gets it; email when an email row routes the class, when no connected account does, or
// when the class is critical. A class routed away from an account is never sent there.
export const ALERT_CLASSES = ["sales", "support", "recovery", "billing", "security", "passes", "onboarding"] as const;
export type AlertClass = (typeof ALERT_CLASSES)[number];
export const CRITICAL_CLASSES: readonly AlertClass[] = ["recovery", "billing", "security"];

export interface RoutableDestination {
  kind: "connector_identity" | "email" | "push_device";
  target: string;
  /** Null = every class; [] = none. */
  classes: readonly AlertClass[] | null;
}

export interface RoutableIdentity {
  connector: string;
  accountId: string;
  isPrimary: boolean;
}

export interface AlertRoute {
  /** The connected accounts to message through their connectors. */
  accounts: { connector: string; accountId: string }[];
  /** Whether the creator's email gets it too. */
  email: boolean;
}

const routes = (d: RoutableDestination, alertClass: AlertClass) => d.classes === null || d.classes.includes(alertClass);

export function routeAlert(
  alertClass: AlertClass,
  destinations: readonly RoutableDestination[],
  identities: readonly RoutableIdentity[],
): AlertRoute {
  const critical = CRITICAL_CLASSES.includes(alertClass);
  if (destinations.length === 0) {
    const primary = identities.find((i) => i.isPrimary);
    return { accounts: primary ? [{ connector: primary.connector, accountId: primary.accountId }] : [], email: critical || !primary };
  }
  const routedAccounts = destinations.filter((d) => d.kind === "connector_identity" && routes(d, alertClass));
  const accounts = identities
    .filter((i) => routedAccounts.some((d) => d.target === i.accountId))
    .map((i) => ({ connector: i.connector, accountId: i.accountId }));
  const emailRouted = destinations.some((d) => d.kind === "email" && routes(d, alertClass));
  return { accounts, email: critical || emailRouted || accounts.length === 0 };
}
