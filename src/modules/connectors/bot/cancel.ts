// /cancel in a member's private chat with the bot (issue 33): "/cancel" lists the member's live
// subscriptions of the installation's project, numbered, with what cancelling does; "/cancel <n>"
// confirms and cancels that one the way the portal and cancel_subscription do (cancelAsMember: the
// provider's renewals stop first, then the subscription at period end, the member as causer), and
// the bot answers with the date access ends. The confirmation is a second command, not a button:
// the driver's sendMessage sends text only and the webhook does not ask for callback queries.
import { ApiError } from "../../../errors.ts";
import type { DomainContext } from "../../../db/tenant.ts";
import type { PlatformAccount } from "../../members/members.ts";
import { membersTable, type MemberRow } from "../../members/tables.ts";
import type { ProviderRegistry } from "../../payments/providers.ts";
import { cancelAsMember, cancellationTerms, liveSubscriptionsOf, notLiveText, PROVIDER_NAMES } from "../../subscriptions/member-cancel.ts";
import type { InstallationRow } from "../tables.ts";
import { ENGLISH_TEXTS, type BotTexts } from "./texts.ts";

/** The argument of a /cancel message ("" for a bare /cancel), or null for any other text. */
export function cancelCommandOf(text: string): string | null {
  const match = /^\/cancel(?:@\w+)?(?:\s+(\S+))?\s*$/.exec(text.trim());
  return match ? (match[1] ?? "") : null;
}

export interface CancelCommand {
  installation: InstallationRow;
  account: PlatformAccount;
  /** What followed /cancel: "" to list, a number to cancel that one. */
  argument: string;
  /** The words of the answer (English unless the bot's package ships the member's language). */
  texts?: BotTexts;
}

const NO_SUBSCRIPTION = "You have no subscription to cancel here.";

/** Runs /cancel for the account; answers the text the bot sends. `ctx` is outside any transaction (the provider is asked over HTTP). */
export async function runCancelCommand(ctx: DomainContext, registry: ProviderRegistry, command: CancelCommand): Promise<string> {
  const texts = command.texts ?? ENGLISH_TEXTS;
  const { t } = texts;
  const NOTHING = t(NO_SUBSCRIPTION);
  const projectId = command.installation.project_id;
  const member = (await membersTable
    .rows(ctx)
    .where({ project_id: projectId, connector_key: command.account.connectorKey, external_user_id: command.account.externalUserId })
    .first()) as MemberRow | undefined;
  if (!member) return NOTHING;
  const scope = { projectId, memberId: member.id };
  const live = await liveSubscriptionsOf(ctx, scope);
  if (!live.length) return NOTHING;
  if (command.argument === "") {
    const lines = live.map((s, i) => `${i + 1}. ${s.planName}: ${cancellationTerms(s.row, texts).join(" ")}`);
    const confirm = live.length === 1 ? t("To cancel it, send /cancel 1") : t("To cancel one, send /cancel and its number, for example /cancel 1");
    return [t("If you cancel:"), ...lines, confirm].join("\n");
  }
  const chosen = /^[1-9]\d{0,2}$/.test(command.argument) ? live[Number(command.argument) - 1] : undefined;
  if (!chosen)
    return t("There is no subscription number {number}. Send /cancel to see your subscriptions.", { number: command.argument.slice(0, 20) });
  try {
    const result = await cancelAsMember(ctx, registry, scope, chosen.row.id);
    if (result.kind === "not-live") return notLiveText(result.subscription, texts);
    return `${t("{plan} is cancelled.", { plan: result.planName })} ${cancellationTerms(chosen.row, texts).join(" ")}`;
  } catch (err) {
    if (!(err instanceof ApiError) || (err.code !== "PAYMENT_METHOD_NOT_CONFIGURED" && err.code !== "SERVICE_BUSY")) throw err;
    const provider = PROVIDER_NAMES[chosen.row.provider ?? ""] ?? t("The payment provider");
    return t(
      "{provider} could not be reached to stop the renewals, so nothing was changed: you are still subscribed. Try /cancel {number} again in a moment.",
      {
        provider,
        number: command.argument,
      },
    );
  }
}
