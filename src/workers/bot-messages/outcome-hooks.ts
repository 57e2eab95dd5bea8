// What an area does when one of its bot messages reaches an outcome, by the message's purpose: the
// worker stays generic and calls whichever hook the purpose names (none for most purposes).
import type { Db } from "../../db/tenant.ts";
import type { BotMessageOutcome } from "../../modules/bot-messages/queue.ts";
import type { BotMessagePurpose } from "../../modules/bot-messages/tables.ts";
import { recordBroadcastOutcomes } from "../../modules/broadcasts/outcomes.ts";

type OutcomeHook = (db: Db, outcomes: readonly BotMessageOutcome[], now: Date) => Promise<void>;

const HOOKS: Partial<Record<BotMessagePurpose, OutcomeHook>> = { broadcast: recordBroadcastOutcomes };

/** Hands each purpose's recorded outcomes to its hook. */
export async function runOutcomeHooks(db: Db, outcomes: readonly BotMessageOutcome[], now: Date): Promise<void> {
  const byPurpose = new Map<string, BotMessageOutcome[]>();
  for (const o of outcomes) byPurpose.set(o.message.purpose, [...(byPurpose.get(o.message.purpose) ?? []), o]);
  for (const [purpose, group] of byPurpose) await HOOKS[purpose as BotMessagePurpose]?.(db, group, now);
}
