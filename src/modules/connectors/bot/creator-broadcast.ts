// /broadcast from the bot (management command `broadcast`): the linked creator's text goes to the
// project's members on this connector whose membership is live (trialing, active, past due), through
// the same createBroadcast as the API. The command only previews it, with the number it reaches
// now; the creator confirms by replying "yes" to the preview, which carries the text, so nothing is
// kept between the two messages and a preview nobody confirms sends nothing.
import { createBroadcast } from "../../broadcasts/broadcasts.ts";
import { segmentMembers, settleSegment } from "../../broadcasts/segment.ts";
import { LIVE_STATUSES } from "../../subscriptions/tables.ts";
import type { CommandDeps, CreatorCall } from "./creator-answers.ts";
import { createDomainContext } from "../../../db/tenant.ts";
import { ApiError } from "../../../errors.ts";
import { textsOf } from "./creator-answers.ts";
import type { BotTexts } from "./texts.ts";

/** Starts every preview, in any language: a reply to a message starting so may confirm it. */
const PREVIEW = "📣";
const RULE = "———";
const CONFIRM = /^(?:\/broadcast(?:@\w+)?\s+)?yes\s*$/i;

const segmentOf = (call: CreatorCall) => ({ connectors: [call.installation.connector_key], subscription_statuses: [...LIVE_STATUSES] });

/** The text of a preview this bot sent, or null when `quoted` is no preview. */
export function previewedText(quoted: string | null): string | null {
  if (!quoted?.startsWith(PREVIEW)) return null;
  const parts = quoted.split(`\n${RULE}\n`);
  return parts.length === 3 ? parts[1]! : null;
}

/** Whether a reply confirms a preview ("yes", or "/broadcast yes"). */
export const confirmsBroadcast = (text: string, replyTo: string | null) => CONFIRM.test(text.trim()) && previewedText(replyTo) !== null;

/** Why the API refused, in one line a chat can show. */
function refusal(err: ApiError, { t }: BotTexts): string {
  const fields = Object.entries(err.fields ?? {}).map(([field, problems]) => `${field} ${problems.join(", ")}`);
  return t("The broadcast was not sent: {problem}", { problem: fields.length ? fields.join("; ") : err.message });
}

export async function broadcast(deps: CommandDeps, call: CreatorCall): Promise<string> {
  const ctx = createDomainContext(deps.db, call.actor, deps.now());
  const projectId = call.installation.project_id;
  const confirming = /^yes$/i.test(call.args.trim());
  const confirmed = confirming ? previewedText(call.replyTo) : null;
  const texts = textsOf(deps, call);
  const { t } = texts;
  try {
    if (confirming && confirmed === null) return t('To send a broadcast, reply "yes" to its preview.');
    if (confirmed !== null) {
      const sent = await deps.db.transaction((trx) =>
        createBroadcast(createDomainContext(trx, call.actor, deps.now()), deps.connectors, projectId, { text: confirmed, segment: segmentOf(call) }),
      );
      const count = sent.totals.recipients - sent.totals.opted_out;
      const vars = { count, opted_out: sent.totals.opted_out };
      return count === 1
        ? t("Sending to 1 member ({opted_out} opted out). See its progress in the dashboard's Broadcasts.", vars)
        : t("Sending to {count} members ({opted_out} opted out). See its progress in the dashboard's Broadcasts.", vars);
    }
    const text = call.args.trim();
    if (!text) return t("Write the message after the command: /broadcast <your message>. You will see it once more before it is sent.");
    const segment = await settleSegment(ctx, deps.connectors, projectId, segmentOf(call));
    const reachable = await segmentMembers(ctx, projectId, segment);
    const reached = reachable.filter((m) => m.broadcasts_opted_out_at === null).length;
    const vars = { count: reached, opted_out: reachable.length - reached };
    const head =
      reached === 1
        ? t("Broadcast preview: to 1 member with a live membership on this bot ({opted_out} opted out).", vars)
        : t("Broadcast preview: to {count} members with a live membership on this bot ({opted_out} opted out).", vars);
    return [`${PREVIEW} ${head}`, RULE, text, RULE, t('To send it, reply to this message with "yes".')].join("\n");
  } catch (err) {
    if (err instanceof ApiError) return refusal(err, texts);
    throw err;
  }
}
