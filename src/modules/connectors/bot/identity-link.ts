// `/start auth_c-<token>`: a creator links the platform account that pressed Start as their
// identity (src/modules/account/identity-links.ts), and the bot says so in the chat. Once linked,
// the bot's admin links (`-check_-…`, `-ban_-…`) and creator commands work for that account
// (admin.ts, creator-commands.ts), and the bot's menu in that chat lists the commands they may use.
import type { DomainContext } from "../../../db/tenant.ts";
import { redeemIdentityLink } from "../../account/identity-links.ts";
import type { StartInput } from "./start-input.ts";
import { queueCommandMenu } from "../platform-tasks.ts";
import { commandsAllowed } from "./admin.ts";
import { commandMenu } from "./bot-commands.ts";

/**
 * The platforms a creator links their account on, by connector key, with the name a creator knows:
 * through a one-time link a bot this service answers redeems (Telegram: the updates route runs
 * openStart), or, for a platform whose driver has a sign-in (Discord), through that sign-in on the
 * authorization host (src/apps/auth/pages/identity-sign-in.ts).
 */
export const LINKABLE_CONNECTORS: Readonly<Record<string, string>> = { telegram: "Telegram", discord: "Discord" };

/** Why a link did not link, in the creator's words (the bot's answer; a sign-in's page). */
export const LINK_REFUSALS = {
  unknown: "This link is not valid for this bot. Open Linked accounts on your SubBridge account page and make a new one.",
  expired: "This link has expired. Open Linked accounts on your SubBridge account page and make a new one.",
  used: "This link was already used. Open Linked accounts on your SubBridge account page to see your linked accounts.",
  linked_elsewhere: "This account is already linked to another SubBridge creator. Unlink it there first.",
};

export async function linkCreatorAccount(
  ctx: DomainContext,
  input: StartInput,
  token: string,
): Promise<{ outcome: { kind: "identity-link"; linked: boolean }; text: string }> {
  const result = await redeemIdentityLink(ctx, { installation: input.installation, account: input.account, token });
  if (!result.linked) return { outcome: { kind: "identity-link", linked: false }, text: LINK_REFUSALS[result.reason] };
  // The menu of this chat (setMyCommands after COMMIT): the member commands and the creator commands their role grants.
  const allowed = await commandsAllowed(ctx, input);
  if (allowed.length) await queueCommandMenu(ctx, input.installation, input.account.externalUserId, commandMenu(allowed));
  const text = result.already
    ? "This account was already linked to your SubBridge account: nothing changed."
    : `This account is now linked to your SubBridge account${result.identity.is_primary ? " as your primary account: alerts come here" : ""}. Admin links and team commands of this bot now work for you: send /help.`;
  return { outcome: { kind: "identity-link", linked: true }, text };
}
