// `/start auth_c-<token>`: a creator links the platform account that pressed Start as their
// identity (src/modules/account/identity-links.ts), and the bot says so in the chat. Once linked,
// the bot's admin links (`-check_-…`, `-ban_-…`) work for that account (admin.ts).
import type { DomainContext } from "../../../db/tenant.ts";
import { redeemIdentityLink } from "../../account/identity-links.ts";
import type { StartInput } from "./start-input.ts";

/**
 * The platforms whose bots redeem identity links, by connector key, with the name a creator knows:
 * the bots this service answers itself (the Telegram updates route runs openStart).
 */
export const LINKABLE_CONNECTORS: Readonly<Record<string, string>> = { telegram: "Telegram" };

const REFUSALS = {
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
  if (!result.linked) return { outcome: { kind: "identity-link", linked: false }, text: REFUSALS[result.reason] };
  const text = result.already
    ? "This account was already linked to your SubBridge account: nothing changed."
    : `This account is now linked to your SubBridge account${result.identity.is_primary ? " as your primary account: alerts come here" : ""}. Admin links of this bot now work for you.`;
  return { outcome: { kind: "identity-link", linked: true }, text };
}
