// The Telegram bot's commands beyond /start and /cancel (issue 46): /help for everyone, and the
// creator commands of bot-commands.ts for a creator whose account is linked (admin.ts, adminOf) and
// who holds the command's ability on the installation's project. Anyone else is told the command is
// the creators' (never silence, never the support relay); an unknown command is answered with
// /help's pointer. A linked creator's plain-text reply to a relayed support message is their answer
// to that conversation (creator-relay.ts).
import { createDomainContext, unscoped, type Actor, type DomainContext } from "../../../db/tenant.ts";
import type { PlatformAccount } from "../../members/members.ts";
import { teamGrantsOf } from "../../roles/grants.ts";
import type { InstallationRow } from "../tables.ts";
import { adminOf, commandsAllowed } from "./admin.ts";
import { creatorCommandNamed, MEMBER_COMMANDS } from "./bot-commands.ts";
import { CREATOR_ANSWERS, type CommandDeps, type CreatorAnswer } from "./creator-answers.ts";
import { conversationInRelay, SUPPORT_ABILITY } from "./creator-relay.ts";
import { broadcast, confirmsBroadcast } from "./creator-broadcast.ts";
import { ENGLISH_TEXTS, installationTexts, type BotTexts } from "./texts.ts";

/** The answer to a creator command from an account that is not a linked creator of the team (English; the bot translates it). */
export const NOT_A_CREATOR =
  "This command is for the community's creators: link your account from the dashboard (Account, Linked accounts), then send it again.";
const NOT_ALLOWED = "Your role in this team does not allow /{command}. Ask the team's owner for it.";
/** The answer to a creator command from a linked creator whose role does not grant it (English). */
export const notAllowed = (name: string, texts: BotTexts = ENGLISH_TEXTS) => texts.t(NOT_ALLOWED, { command: name });
const unknownCommand = (word: string, texts: BotTexts) =>
  texts.t("There is no /{command} command here. Send /help to see what this bot does.", { command: word.slice(0, 32) });

// /broadcast's answer imports the answers' types, so it joins the table here rather than in creator-answers.ts.
const ANSWERS: Readonly<Record<string, CreatorAnswer>> = { ...CREATOR_ANSWERS, broadcast };

export interface BotCommandInput {
  installation: InstallationRow;
  account: PlatformAccount;
  /** The webhook's actor (the creator's id is added when one acts). */
  actor: Actor;
  text: string;
  /** The text of the bot's message this one replies to (Telegram's reply_to_message), or null. */
  replyTo: string | null;
}

/** A command message's word (lowercase, without @bot) and what follows it; null for text that is no command. */
export function commandOf(text: string): { word: string; args: string } | null {
  const match = /^\/([A-Za-z0-9_]{1,64})(?:@\w+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { word: match[1]!.toLowerCase(), args: match[2] ?? "" } : null;
}

/** Whether the account is linked to a creator of the installation's team (whatever their role grants). */
async function linkedToTeam(ctx: DomainContext, input: BotCommandInput): Promise<boolean> {
  const db = unscoped(ctx, "the bot: whether a platform account is linked to one of the team's creators (identities belong to people)");
  const identity = (await db("identities")
    .where({ connector: input.installation.connector_key, account_id: input.account.externalUserId })
    .first("user_id")) as { user_id: string } | undefined;
  return identity ? (await teamGrantsOf(db, identity.user_id, input.installation.team_id)) !== null : false;
}

async function help(ctx: DomainContext, input: BotCommandInput, { t }: BotTexts): Promise<string> {
  const members = MEMBER_COMMANDS.map((c) => `/${c.command}: ${t(c.description)}`);
  const creator = await commandsAllowed(ctx, input);
  const team = creator.map((c) => `/${c.name}: ${t(c.help).replace(/^[^:]*: /, "")}${c.usage ? `\n   ${t(c.usage)}` : ""}`);
  const teamLines = team.length ? ["", t("For the team:"), ...team] : [];
  return [t("Commands:"), ...members, t("Any other message goes to the community's team."), ...teamLines].join("\n");
}

/**
 * The bot's answer to a private message that is a command other than /start and /cancel, or a
 * linked creator's reply to a relayed support message; null when the message is the support
 * relay's (text that is no command).
 */
export async function answerBotCommand(deps: CommandDeps, input: BotCommandInput): Promise<string | null> {
  const ctx = createDomainContext(deps.db, input.actor, deps.now());
  const command = commandOf(input.text);
  if (!command) {
    // "yes" in reply to a /broadcast preview is that command's confirmation.
    if (confirmsBroadcast(input.text, input.replyTo)) return answerBotCommand(deps, { ...input, text: "/broadcast yes" });
    if (!input.replyTo || !conversationInRelay(input.replyTo)) return null;
    const creator = await adminOf(ctx, input, SUPPORT_ABILITY);
    if (!creator) return null;
    return CREATOR_ANSWERS.reply!(deps, { ...input, actor: { ...input.actor, userId: creator }, args: input.text });
  }
  const texts = installationTexts(deps.connectors.packages, input.installation);
  if (command.word === "help") return help(ctx, input, texts);
  const spec = creatorCommandNamed(command.word);
  if (!spec) return unknownCommand(command.word, texts);
  const creator = await adminOf(ctx, input, spec.ability);
  if (!creator) return (await linkedToTeam(ctx, input)) ? notAllowed(spec.name, texts) : texts.t(NOT_A_CREATOR);
  // The creator is the causer of what the command changes, as when they use the API.
  return ANSWERS[spec.name]!(deps, { ...input, actor: { ...input.actor, userId: creator }, args: command.args });
}
