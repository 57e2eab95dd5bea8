// Where a creator alert goes (rule 5 and "Alert destinations" of the description), as routeAlert
// decides it: the default routing with no rows, and the rules over rows.
import assert from "node:assert/strict";
import {
  ALERT_CLASSES,
  routeAlert,
  type AlertClass,
  type RoutableDestination,
  type RoutableIdentity,
} from "../../../src/modules/account/alert-routing.ts";

const CRITICAL: readonly AlertClass[] = ["recovery", "billing", "security"];
const isCritical = (c: AlertClass) => CRITICAL.includes(c);

const tg: RoutableIdentity = { connector: "telegram", accountId: "tg-1", isPrimary: true };
const dc: RoutableIdentity = { connector: "discord", accountId: "dc-2", isPrimary: false };
const tg2: RoutableIdentity = { connector: "telegram", accountId: "tg-3", isPrimary: false };

const account = (target: string, classes: AlertClass[] | null): RoutableDestination => ({ kind: "connector_identity", target, classes });
const email = (classes: AlertClass[] | null): RoutableDestination => ({ kind: "email", target: "ada@example.com", classes });

interface Case {
  name: string;
  destinations: RoutableDestination[];
  identities: RoutableIdentity[];
  /** For each class: the account ids it reaches and whether email gets it. */
  expect: (alertClass: AlertClass) => { accounts: string[]; email: boolean };
}

const cases: Case[] = [
  {
    name: "default routing: every class to the primary connected account, critical classes also to email",
    destinations: [],
    identities: [tg, dc],
    expect: (c) => ({ accounts: ["tg-1"], email: isCritical(c) }),
  },
  {
    name: "default routing with the primary listed after other identities",
    destinations: [],
    identities: [dc, tg2, tg],
    expect: (c) => ({ accounts: ["tg-1"], email: isCritical(c) }),
  },
  {
    name: "default routing without any linked account: email",
    destinations: [],
    identities: [],
    expect: () => ({ accounts: [], email: true }),
  },
  {
    name: "default routing without a primary account: email",
    destinations: [],
    identities: [dc],
    expect: () => ({ accounts: [], email: true }),
  },
  {
    name: "the default written down (primary every class, email the critical ones, a second account every class)",
    destinations: [account("tg-1", null), email(["recovery", "billing", "security"]), account("dc-2", null)],
    identities: [tg, dc],
    expect: (c) => ({ accounts: ["dc-2", "tg-1"], email: isCritical(c) }),
  },
  {
    name: "every connected account routed to the class gets it; email when an email row routes it",
    destinations: [account("tg-1", null), account("dc-2", ["sales"]), email(["support"])],
    identities: [tg, dc],
    expect: (c) => ({ accounts: c === "sales" ? ["dc-2", "tg-1"] : ["tg-1"], email: c === "support" || isCritical(c) }),
  },
  {
    name: "a class routed away from an account is never sent there",
    destinations: [account("tg-1", ["sales", "passes"]), account("dc-2", ["support", "security"])],
    identities: [tg, dc],
    expect: (c) => {
      const accounts = [...(["sales", "passes"].includes(c) ? ["tg-1"] : []), ...(["support", "security"].includes(c) ? ["dc-2"] : [])].sort();
      return { accounts, email: accounts.length === 0 || isCritical(c) };
    },
  },
  {
    name: "classes [] never receives: the account is kept and gets nothing; email takes over",
    destinations: [account("tg-1", []), account("dc-2", ["onboarding"])],
    identities: [tg, dc],
    expect: (c) => ({ accounts: c === "onboarding" ? ["dc-2"] : [], email: c !== "onboarding" || isCritical(c) }),
  },
  {
    name: "email when no connected account routes the class, even with an email row that does not",
    destinations: [account("tg-1", ["sales"]), email(["passes"])],
    identities: [tg],
    expect: (c) => ({ accounts: c === "sales" ? ["tg-1"] : [], email: c !== "sales" }),
  },
  {
    name: "critical classes always also reach email, even with an email row of classes []",
    destinations: [account("tg-1", null), email([])],
    identities: [tg],
    expect: (c) => ({ accounts: ["tg-1"], email: isCritical(c) }),
  },
  {
    name: "an email row of every class",
    destinations: [account("dc-2", ["support"]), email(null)],
    identities: [tg, dc],
    expect: (c) => ({ accounts: c === "support" ? ["dc-2"] : [], email: true }),
  },
  {
    name: "only an email row: email for every class, no account (the primary is not routed by default once rows exist)",
    destinations: [email(null)],
    identities: [tg],
    expect: () => ({ accounts: [], email: true }),
  },
  {
    name: "a row naming an account that is no longer linked sends nothing there",
    destinations: [account("gone-9", null), account("tg-3", ["billing"])],
    identities: [tg, tg2],
    expect: (c) => ({ accounts: c === "billing" ? ["tg-3"] : [], email: true }),
  },
  {
    name: "several accounts on one connector each get the class they are routed",
    destinations: [account("tg-1", ["sales"]), account("tg-3", ["sales", "support"])],
    identities: [tg, tg2],
    expect: (c) => {
      const accounts = c === "sales" ? ["tg-1", "tg-3"] : c === "support" ? ["tg-3"] : [];
      return { accounts, email: accounts.length === 0 || isCritical(c) };
    },
  },
  {
    name: "an account named by two rows gets a class routed by either, once",
    destinations: [account("tg-1", ["sales"]), account("tg-1", ["sales", "passes"])],
    identities: [tg],
    expect: (c) => ({ accounts: ["sales", "passes"].includes(c) ? ["tg-1"] : [], email: !["sales", "passes"].includes(c) || isCritical(c) }),
  },
];

describe("alert routing (routeAlert)", () => {
  it("knows the seven classes of the description", () => {
    assert.deepEqual([...ALERT_CLASSES].sort(), ["billing", "onboarding", "passes", "recovery", "sales", "security", "support"]);
  });

  for (const c of cases) {
    it(c.name, () => {
      for (const alertClass of ALERT_CLASSES) {
        const route = routeAlert(alertClass, c.destinations, c.identities);
        const expected = c.expect(alertClass);
        assert.deepEqual(
          { accounts: route.accounts.map((a) => a.accountId).sort(), email: route.email },
          { accounts: [...expected.accounts].sort(), email: expected.email },
          `class ${alertClass}`,
        );
        // Each account goes out through its own connector, once.
        for (const sent of route.accounts) {
          const identity = c.identities.find((i) => i.accountId === sent.accountId);
          assert.equal(sent.connector, identity?.connector, `${sent.accountId} goes through its connector`);
        }
        assert.equal(new Set(route.accounts.map((a) => a.accountId)).size, route.accounts.length, `${alertClass}: no account twice`);
      }
    });
  }

  it("a critical class always reaches email, whatever the rows say", () => {
    const rowsets: RoutableDestination[][] = [[], [account("tg-1", null)], [account("tg-1", null), email([])], [email(["sales"])]];
    for (const rows of rowsets) {
      for (const alertClass of CRITICAL) assert.equal(routeAlert(alertClass, rows, [tg]).email, true, `${alertClass} with ${JSON.stringify(rows)}`);
    }
  });
});
