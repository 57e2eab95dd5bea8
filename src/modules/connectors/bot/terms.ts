// The installation's terms of service (its terms_url setting) in the bot: a plan sold in Telegram
// Stars first answers with the terms and a start link accepting them (`-accept_-<plan id>`, a member
// command, unlike the admin ones); opening it records the acceptance (who, when, which address) and
// the invoice follows. A member accepts each address once per installation.
import { randomUUID } from "node:crypto";
import { commandStartPayload } from "@subbridge/sdk/connector";
import type { DomainContext } from "../../../db/tenant.ts";
import { recordActivity } from "../../activity/activity-log.ts";
import type { MemberRow } from "../../members/tables.ts";
import type { PlanRow } from "../../plans/tables.ts";
import { termsAcceptancesTable, type InstallationRow } from "../tables.ts";
import type { StartInput } from "./start-input.ts";

/** The start command of the acceptance link. */
export const ACCEPT_TERMS_COMMAND = "accept";

/** The installation's terms address, or null when it shows none. */
export function termsUrlOf(settings: Record<string, unknown>): string | null {
  return typeof settings.terms_url === "string" && settings.terms_url !== "" ? settings.terms_url : null;
}

export async function termsAccepted(ctx: DomainContext, installationId: string, memberId: string, termsUrl: string): Promise<boolean> {
  const row = await termsAcceptancesTable.rows(ctx).where({ installation_id: installationId, member_id: memberId, terms_url: termsUrl }).first("id");
  return row !== undefined;
}

/** The answer to a plan link whose terms are not accepted yet: the offer, the terms, the acceptance link. */
export function termsOfferText(input: StartInput, plan: PlanRow, termsUrl: string, offer: string): string {
  const { t } = input.texts;
  const payload = commandStartPayload(ACCEPT_TERMS_COMMAND, [plan.id]);
  // Without a bot address (none is known for the bot) the member can still type the command.
  const link = input.installation.bot_url ? `${input.installation.bot_url}?start=${payload}` : `/start ${payload}`;
  return [
    offer,
    t("Before you pay, read the terms of service: {terms}", { terms: termsUrl }),
    t("To accept them and get the invoice, open {link}", { link }),
  ].join("\n");
}

/** Records that `member` accepted `termsUrl` in the installation's bot (once: a repeat changes nothing). */
export async function acceptTerms(
  ctx: DomainContext,
  input: { installation: Pick<InstallationRow, "id" | "project_id">; member: MemberRow; termsUrl: string },
): Promise<void> {
  const { installation, member, termsUrl } = input;
  const inserted = await termsAcceptancesTable
    .insert(ctx, {
      id: randomUUID(),
      project_id: installation.project_id,
      installation_id: installation.id,
      member_id: member.id,
      terms_url: termsUrl,
      accepted_at: ctx.now,
    })
    .onConflict(["installation_id", "member_id", "terms_url"])
    .ignore()
    .returning("id");
  if (!inserted.length) return;
  await recordActivity(ctx, {
    event: "terms_accepted",
    description: `Member ${member.display_name ?? member.external_user_id} accepted the terms of service in the bot`,
    subjectType: "member",
    subjectId: member.id,
    projectId: installation.project_id,
    properties: { installation_id: installation.id, terms_url: termsUrl },
  });
}
