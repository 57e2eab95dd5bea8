// The support relay to the creators (issue 46): a member's message that opens or joins a support
// conversation is forwarded, through the same bot, to every creator of the team whose account on
// that platform is linked and who may answer support on the project (support-conversation:update),
// saying how to answer: reply to the forwarded message, or /reply with the conversation's first
// characters (creator-answers.ts reads both). It is queued as a bot message in the transaction that
// records the member's message, so it exists if and only if the message does. The creator's alert
// routing decides as for the support alert: an account their `support` class is routed away from
// gets nothing, and one their support alert (alerts/producers.ts) already reaches through that bot
// is not sent it twice (a reply to the alert answers the conversation the same way).
import { unscoped, type DomainContext } from "../../../db/tenant.ts";
import { routeAlert, type RoutableDestination } from "../../account/alert-routing.ts";
import { queueBotMessage } from "../../bot-messages/outbox.ts";
import { botMessagesTable } from "../../bot-messages/tables.ts";
import type { InstallationRow } from "../tables.ts";
import { adminOf } from "./admin.ts";

/** The ability a creator needs to get the relay and to /reply: the one reply_to_support_conversation requires. */
export const SUPPORT_ABILITY = "support-conversation:update";
/** How many of a conversation's id's characters name it in the chat. */
export const SHORT_ID_LENGTH = 8;

const MARK = new RegExp(`\\(conversation ([0-9a-f]{${SHORT_ID_LENGTH}})\\)`);
/** How the support alert names the conversation: `Conversation "<subject>" (<id>).` */
const ALERT_MARK = /Conversation "[^\n]*" \(([0-9a-f-]{36})\)\./;

/** The conversation a forwarded message or a support alert names (its short or whole id), or null for any other text. */
export function conversationInRelay(text: string): string | null {
  return MARK.exec(text)?.[1] ?? ALERT_MARK.exec(text)?.[1] ?? null;
}

/** The forwarded message's text (Telegram takes 4096 characters: a long message is cut). */
export function relayText(input: { member: string; conversationId: string; body: string; opened: boolean }): string {
  const short = input.conversationId.slice(0, SHORT_ID_LENGTH);
  const head = `Support: ${input.member} ${input.opened ? "opened a conversation" : "wrote"} (conversation ${short}):`;
  const how = `Answer by replying to this message, or send /reply ${short} <your answer>.`;
  const room = 4000 - head.length - how.length;
  const body = input.body.length > room ? `${input.body.slice(0, room - 1)}…` : input.body;
  return `${head}\n\n${body}\n\n${how}`;
}

/** Whether the creator's alert routing sends the `support` class to `account` (their settings, or the default: the primary account). */
async function supportRoutedTo(db: ReturnType<typeof unscoped>, userId: string, account: string): Promise<boolean> {
  const destinations = (await db("alert_destinations")
    .where({ user_id: userId })
    .orderBy("position")
    .select("kind", "target", "classes")) as RoutableDestination[];
  const identities = (await db("identities").where({ user_id: userId }).select("connector", "account_id", "is_primary")) as {
    connector: string;
    account_id: string;
    is_primary: boolean;
  }[];
  const route = routeAlert(
    "support",
    destinations,
    identities.map((i) => ({ connector: i.connector, accountId: i.account_id, isPrimary: i.is_primary })),
  );
  return route.accounts.some((a) => a.accountId === account);
}

/**
 * The linked accounts on the installation's platform of the team's creators who may answer its
 * project's support and whose alert routing sends support there.
 */
export async function supportCreators(ctx: DomainContext, installation: InstallationRow): Promise<string[]> {
  const db = unscoped(ctx, "the support relay: which of the team's creators linked an account on the platform (identities belong to people)");
  const rows = (await db("identities")
    .where({ connector: installation.connector_key })
    .where((q) =>
      q
        .whereIn("user_id", db("teams").where({ id: installation.team_id }).select("owner_user_id"))
        .orWhereIn("user_id", db("team_members").where({ team_id: installation.team_id }).select("user_id")),
    )
    .orderBy("linked_at")
    .select("user_id", "account_id")) as { user_id: string; account_id: string }[];
  const accounts: string[] = [];
  for (const { user_id, account_id } of rows) {
    const account = { connectorKey: installation.connector_key, externalUserId: account_id, displayName: null };
    if ((await adminOf(ctx, { installation, account }, SUPPORT_ABILITY)) && (await supportRoutedTo(db, user_id, account_id)))
      accounts.push(account_id);
  }
  return accounts;
}

/**
 * Queues the forwarded message to each creator who gets it, in `ctx`'s transaction; the sender
 * (a creator writing to their own bot) is not sent their own message. Answers how many were queued.
 */
export async function relayToCreators(
  ctx: DomainContext,
  input: { installation: InstallationRow; sender: string; conversationId: string; messageId: string; member: string; body: string; opened: boolean },
): Promise<number> {
  let queued = 0;
  // The support alert raised with the message, where it went to an account through this bot.
  const alerted = new Set(
    (await botMessagesTable
      .rows(ctx)
      .where({ installation_id: input.installation.id, purpose: "alert", created_at: ctx.now })
      .whereRaw("strpos(text, ?) > 0", [`(${input.conversationId}).`])
      .pluck("recipient")) as string[],
  );
  for (const recipient of await supportCreators(ctx, input.installation)) {
    if (recipient === input.sender || alerted.has(recipient)) continue;
    const id = await queueBotMessage(ctx, {
      installation: input.installation,
      recipient,
      text: relayText(input),
      purpose: "support_relay",
      subject: { type: "support_message", id: input.messageId },
      dedupeKey: `support-relay:${input.messageId}:${recipient}`,
    });
    if (id) queued++;
  }
  return queued;
}
