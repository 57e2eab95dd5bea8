// The bot's star transactions read back for one subscription: Telegram has no call that returns a
// subscription, only the bot's whole ledger (getStarTransactions, 100 a page, oldest first).
import type { NativeTransaction, PlatformPayments } from "../../connectors/drivers/driver.ts";

const PAGE = 100;
/** A bound on the pages read (100,000 transactions), so a platform that keeps answering full pages cannot loop forever. */
const MAX_PAGES = 1_000;

/** A subscription payment, and whether it was refunded since. */
export type SubscriptionPayment = NativeTransaction & { refunded: boolean };

/** The payments of the subscription `payload` of member `userId`, oldest first. */
export async function subscriptionPayments(payments: PlatformPayments, userId: string, payload: string): Promise<SubscriptionPayment[]> {
  const paid: NativeTransaction[] = [];
  const refunded = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const transactions = await payments.transactions({ offset: page * PAGE, limit: PAGE });
    for (const tx of transactions) {
      if (tx.userId !== userId || tx.payload !== payload) continue;
      if (tx.direction === "out") refunded.add(tx.id);
      else if (tx.subscriptionPeriod !== null) paid.push(tx);
    }
    if (transactions.length < PAGE) return paid.sort((a, b) => a.date - b.date).map((tx) => ({ ...tx, refunded: refunded.has(tx.id) }));
  }
  throw new Error(`The bot's star ledger has more than ${MAX_PAGES * PAGE} transactions; the subscription was not found in time.`);
}
