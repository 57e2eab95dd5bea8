// What the simulated Telegram Stars (fake-telegram-stars.ts) remember: the invoices bots made, the
// charges members paid (a subscription's renewals share its one record), each bot's ledger of star
// transactions, and the counters of update and message ids. `starsSnapshot()` and `restoreStars()`
// carry it as plain JSON for an embedded start's state file.

/** The Telegram user the simulator acts as. */
export interface SimulatedTelegramUser {
  id: number;
  first_name: string;
  username?: string;
  /** The Bot API's IETF language tag of the user's language ("de", "pt-br"): the bot answers in it when it can. */
  language_code?: string;
}

export interface StoredInvoice {
  botId: number;
  title: string;
  payload: string;
  amount: number;
  subscriptionPeriod: number | null;
}

export interface StarSubscription {
  botId: number;
  user: SimulatedTelegramUser;
  amount: number;
  payload: string;
  period: number;
  expiresAt: number;
  canceledByUser: boolean;
  canceledByBot: boolean;
}

export interface StarCharge {
  botId: number;
  user: SimulatedTelegramUser;
  amount: number;
  payload: string;
  refunded: boolean;
  subscription: StarSubscription | null;
}

export interface StarsStore {
  invoices: Map<string, StoredInvoice>;
  charges: Map<string, StarCharge>;
  ledger: Map<number, Record<string, unknown>[]>;
  counters: { updateId: number; sequence: number };
}

/** The store as plain JSON: a charge names its subscription by its place in `subscriptions`. */
export interface StarsSnapshot {
  invoices: [string, StoredInvoice][];
  subscriptions: StarSubscription[];
  charges: [string, Omit<StarCharge, "subscription"> & { subscription: number | null }][];
  ledger: [number, Record<string, unknown>[]][];
  counters: { updateId: number; sequence: number };
}

export const starsStore = (): StarsStore => ({
  invoices: new Map(),
  charges: new Map(),
  ledger: new Map(),
  counters: { updateId: 100_000_000, sequence: 0 },
});

export function starsSnapshot(store: StarsStore): StarsSnapshot {
  const subscriptions = [...new Set([...store.charges.values()].flatMap((c) => (c.subscription ? [c.subscription] : [])))];
  return {
    invoices: [...store.invoices],
    subscriptions,
    charges: [...store.charges].map(([id, c]) => [id, { ...c, subscription: c.subscription ? subscriptions.indexOf(c.subscription) : null }]),
    ledger: [...store.ledger],
    counters: store.counters,
  };
}

export function restoreStars(store: StarsStore, snapshot: StarsSnapshot): void {
  snapshot.invoices.forEach(([key, invoice]) => store.invoices.set(key, invoice));
  for (const [id, charge] of snapshot.charges)
    store.charges.set(id, { ...charge, subscription: charge.subscription === null ? null : snapshot.subscriptions[charge.subscription]! });
  snapshot.ledger.forEach(([bot, transactions]) => store.ledger.set(bot, transactions));
  Object.assign(store.counters, snapshot.counters);
}
