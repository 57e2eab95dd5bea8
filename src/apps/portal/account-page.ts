// The signed-in member's pages: GET /<handle>/account (subscriptions with plan, status and period
// end; the access they grant), POST /<handle>/redeem (an access code redeemed as this member, a
// refusal said in words), POST /<handle>/account/broadcasts (stop or resume broadcasts), POST
// /<handle>/sign-out.
import type Koa from "koa";
import { html } from "../auth/pages/html.ts";
import { readPageForm } from "../auth/pages/forms.ts";
import { ApiError } from "../../errors.ts";
import { redeemAccessCode } from "../../modules/access-codes/redeem.ts";
import { refusalText } from "../../modules/connectors/bot/start.ts";
import { syncPlatformAccess } from "../../modules/connectors/access-sync.ts";
import { signedInMember, endPortalSession } from "../../modules/portal/sessions.ts";
import type { MemberRow } from "../../modules/members/tables.ts";
import { LIVE_STATUSES } from "../../modules/subscriptions/tables.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import type { RequestState } from "../../http/request.ts";
import { memberHoldings, portalContext } from "./catalog.ts";
import { browserKeyOf } from "./browser-key.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";
import { memberName, redeemForm, renderProjectPage } from "./project-page.ts";
import { broadcastsSection, setBroadcastsPreference } from "./broadcasts-preference.ts";

const requestId = (ctx: Koa.Context) => (ctx.state as RequestState).requestId ?? null;

export function currentMember(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<MemberRow | null> {
  return signedInMember(portalContext(deps, project, requestId(ctx)), project.id, browserKeyOf(ctx));
}

/** The path of a subscription's cancellation page (cancel-page.ts). */
export const cancelPath = (handle: string, subscriptionId: string) => portalPath(handle, `/subscriptions/${subscriptionId}/cancel`);

const day = (d: Date | null) => (d ? new Date(d).toISOString().slice(0, 10) : null);

const SUBSCRIPTION_STATUS: Record<string, string> = {
  trialing: "Trial",
  active: "Active",
  past_due: "Payment due",
  canceled: "Cancelled",
  expired: "Ended",
};
/** A grant's state in words; a pending manual perk is handed over by the creator, any other pending grant by the bot. */
function grantStatus(grant: { status: string; grant_mode: string }): string {
  if (grant.status === "pending")
    return grant.grant_mode === "creator_task" ? "On its way: the creator hands this over personally" : "On its way: the bot sends your invite";
  return grant.status === "granted" ? "Granted" : grant.status === "revoked" ? "Ended" : grant.status;
}

export async function showAccount(ctx: Koa.Context, deps: PortalDeps, project: PortalProject, alert?: string): Promise<void> {
  const member = await currentMember(ctx, deps, project);
  if (!member) {
    ctx.status = 303;
    return ctx.redirect(`${portalPath(project.handle)}#sign-in-heading`);
  }
  const { subscriptions, grants } = await memberHoldings(portalContext(deps, project, requestId(ctx)), deps.connectors, project.id, member.id);
  const redeemed = ctx.query.redeemed !== undefined;
  renderPortalPage(ctx, {
    title: "Your membership",
    project,
    member: { name: memberName(member) },
    ...(alert ? { status: 422 } : {}),
    body: html`<h1>Your membership</h1>
      <p>
        Signed in as
        <strong>${memberName(member)}</strong
        >${member.connector_key ? ` (${deps.connectors.card(member.connector_key)?.name ?? member.connector_key})` : ""}.
      </p>
      ${redeemed && !alert ? portalNotice("success", "Your access code worked: welcome!") : ""} ${alert ? portalNotice("error", alert) : ""}
      <section aria-labelledby="subscriptions-heading">
        <h2 id="subscriptions-heading">Subscriptions</h2>
        ${
          subscriptions.length
            ? html`<table>
                <thead>
                  <tr>
                    <th scope="col">Plan</th>
                    <th scope="col">Status</th>
                    <th scope="col">Started</th>
                    <th scope="col">Period ends</th>
                    <th scope="col"><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${subscriptions.map(
                    (s) =>
                      html`<tr>
                        <th scope="row">${s.plan_name}</th>
                        <td>${SUBSCRIPTION_STATUS[s.status] ?? s.status}</td>
                        <td>${day(s.started_at)}</td>
                        <td>${day(s.ends_at) ?? "No end date"}</td>
                        <td>
                          ${LIVE_STATUSES.includes(s.status) ? html`<a href="${cancelPath(project.handle, s.id)}">Cancel subscription</a>` : ""}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p>You have no subscription yet. <a href="${portalPath(project.handle)}">See the plans</a>.</p>`
        }
      </section>
      <section aria-labelledby="access-heading">
        <h2 id="access-heading">Your access</h2>
        ${
          grants.length
            ? html`<ul class="grants">
                  ${grants.map(
                    (g) =>
                      html`<li>
                        <span class="grant-title">${g.resource?.title ?? "A perk"}</span>
                        ${g.resource?.label ? html`<span class="kind">${g.resource.label}</span>` : ""}
                        <span class="grant-status status-${g.status}">${grantStatus(g)}</span>
                      </li>`,
                  )}
                </ul>
                <p class="hint">Invite links arrive as messages from the community's bot.</p>`
            : html`<p>Nothing granted yet.</p>`
        }
      </section>
      ${broadcastsSection(ctx, project.handle, member)}
      <section aria-labelledby="code-heading">
        <h2 id="code-heading">Redeem an access code</h2>
        ${redeemForm(ctx, project.handle)}
      </section>`,
  });
}

/** POST /<handle>/account/broadcasts: the member's opt-out of broadcasts (broadcasts-preference.ts). */
export async function changeBroadcasts(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  await setBroadcastsPreference(ctx, deps, project, await currentMember(ctx, deps, project));
}

export async function redeemCode(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const { fields } = await readPageForm(ctx);
  const member = await currentMember(ctx, deps, project);
  if (!member || !member.connector_key || !member.external_user_id) {
    const domain = portalContext(deps, project, requestId(ctx));
    return renderProjectPage(ctx, deps, domain, project, {
      member: null,
      status: 401,
      alert: "Sign in first: the code is redeemed for your account.",
    });
  }
  const code = (fields.code ?? "").trim();
  if (!code) return showAccount(ctx, deps, project, "Enter an access code.");
  const account = { connectorKey: member.connector_key, externalUserId: member.external_user_id, displayName: member.display_name };
  try {
    await deps.db.transaction((trx) =>
      redeemAccessCode(portalContext(deps, project, requestId(ctx), trx), { projectId: project.id, code, member: account }),
    );
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const text = err.code === "ACCESS_CODE_INVALID" ? "No access code of this community matches (codes are case-sensitive)." : refusalText(err);
    if (!text) throw err;
    return showAccount(ctx, deps, project, text);
  }
  try {
    // Invite links now; whatever fails is retried by the connector sweep.
    await syncPlatformAccess(deps.db, deps, deps.now(), { memberId: member.id }, deps.logger);
  } catch (err) {
    deps.logger.warn({ member_id: member.id, err }, "access sync after a portal redemption failed");
  }
  ctx.status = 303;
  ctx.redirect(portalPath(project.handle, "/account?redeemed"));
}

export async function signOut(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  await readPageForm(ctx);
  await endPortalSession(portalContext(deps, project, requestId(ctx)), project.id, browserKeyOf(ctx));
  ctx.status = 303;
  ctx.redirect(portalPath(project.handle));
}
