// The member's choice about broadcasts on their account page: one form (POST
// /<handle>/account/broadcasts, receive=yes|no) doing what /stop and /resume do in the bot
// (modules/broadcasts/opt-out.ts), for members who would rather click than type a command.
import type Koa from "koa";
import { html, type Html } from "../auth/pages/html.ts";
import { csrfField } from "../auth/pages/csrf.ts";
import { readPageForm } from "../auth/pages/forms.ts";
import { runBroadcastCommand } from "../../modules/broadcasts/opt-out.ts";
import type { MemberRow } from "../../modules/members/tables.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import type { RequestState } from "../../http/request.ts";
import { portalContext } from "./catalog.ts";
import type { PortalDeps } from "./deps.ts";
import { portalPath } from "./layout.ts";

const optedOut = (member: MemberRow) => (member as MemberRow & { broadcasts_opted_out_at?: Date | null }).broadcasts_opted_out_at != null;

/** The account page's section: whether the member receives broadcasts, and the button that changes it. */
export function broadcastsSection(ctx: Koa.Context, handle: string, member: MemberRow): Html {
  if (!member.connector_key || !member.external_user_id) return html``;
  const off = optedOut(member);
  return html`<section aria-labelledby="broadcasts-heading">
    <h2 id="broadcasts-heading">Announcements</h2>
    <p>
      ${
        off
          ? "You do not receive the community's broadcasts."
          : "You receive the community's broadcasts from its bot. Messages about your own membership always arrive."
      }
    </p>
    <form method="post" action="${portalPath(handle, "/account/broadcasts")}">
      ${csrfField(ctx)}<input type="hidden" name="receive" value="${off ? "yes" : "no"}" />
      <button type="submit">${off ? "Receive broadcasts again" : "Stop broadcasts"}</button>
    </form>
  </section>`;
}

/** POST /<handle>/account/broadcasts: sets the signed-in member's opt-out, then back to the account page. */
export async function setBroadcastsPreference(ctx: Koa.Context, deps: PortalDeps, project: PortalProject, member: MemberRow | null): Promise<void> {
  const { fields } = await readPageForm(ctx);
  if (member?.connector_key && member.external_user_id && (fields.receive === "yes" || fields.receive === "no")) {
    const account = { connectorKey: member.connector_key, externalUserId: member.external_user_id, displayName: member.display_name };
    const requestId = (ctx.state as RequestState).requestId ?? null;
    await deps.db.transaction((trx) =>
      runBroadcastCommand(portalContext(deps, project, requestId, trx), project.id, account, fields.receive === "no" ? "stop" : "resume"),
    );
  }
  ctx.status = 303;
  ctx.redirect(portalPath(project.handle, member ? "/account" : ""));
}
