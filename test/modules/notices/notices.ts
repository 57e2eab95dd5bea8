// What the notice tests share: the notices queued about a subscription (bot_messages is their record).
import { testDatabase } from "../../helpers/backends.ts";

export interface QueuedNotice {
  purpose: string;
  recipient: string;
  text: string;
  status: string;
  dedupe_key: string;
  connector_key: string;
}

/** The notices queued about `subscriptionId`, oldest first. */
export async function noticesOf(subscriptionId: string): Promise<QueuedNotice[]> {
  const { db } = await testDatabase();
  return db("bot_messages")
    .where({ subject_type: "subscription", subject_id: subscriptionId })
    .orderBy("created_at")
    .select("purpose", "recipient", "text", "status", "dedupe_key", "connector_key");
}
