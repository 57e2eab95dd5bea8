// A member cancels a subscription from the portal (issue 33): GET /<handle>/subscriptions/<id>/cancel
// says exactly what happens (renewals stop, at Stripe or in Telegram; access until the period's end)
// before a button; POST (CSRF) cancels through the same domain path as cancel_subscription
// (cancelAsMember: the provider first, then the subscription at period end), with the member as the
// causer. Only the signed-in member's own subscription is found; a provider that cannot be reached
// is a page saying nothing changed.
import type Koa from "koa";
import { html, type Html } from "../auth/pages/html.ts";
import { csrfField } from "../auth/pages/csrf.ts";
import { readPageForm } from "../auth/pages/forms.ts";
import { PageError } from "../auth/pages/page-error.ts";
import { ApiError } from "../../errors.ts";
import type { RequestState } from "../../http/request.ts";
import { surfaceRegistry } from "../../modules/payments/providers.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import type { MemberRow } from "../../modules/members/tables.ts";
import {
  cancelAsMember,
  cancellationTerms,
  memberSubscription,
  notLiveText,
  PROVIDER_NAMES,
  type MemberSubscription,
} from "../../modules/subscriptions/member-cancel.ts";
import { UUID } from "../../uuid.ts";
import { cancelPath, currentMember } from "./account-page.ts";
import { portalContext } from "./catalog.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";
import { memberName } from "./project-page.ts";

async function signedInOwner(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<{ member: MemberRow; id: string } | null> {
  const id = String(ctx.params.subscription ?? "");
  const member = await currentMember(ctx, deps, project);
  if (!member) {
    ctx.status = 303;
    ctx.redirect(`${portalPath(project.handle)}#sign-in-heading`);
    return null;
  }
  if (!UUID.test(id)) throw new PageError(404, "You have no such subscription here.");
  return { member, id };
}

async function ownSubscription(ctx: Koa.Context, deps: PortalDeps, project: PortalProject, member: MemberRow, id: string) {
  try {
    return await memberSubscription(portalContext(deps, project, requestIdOf(ctx)), { projectId: project.id, memberId: member.id }, id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "RESOURCE_NOT_FOUND") throw new PageError(404, "You have no such subscription here.");
    throw err;
  }
}

const requestIdOf = (ctx: Koa.Context) => (ctx.state as RequestState).requestId ?? null;

function renderCancelPage(
  ctx: Koa.Context,
  project: PortalProject,
  member: MemberRow,
  found: MemberSubscription,
  notice?: { status: number; html: Html },
): void {
  const { row, planName } = found;
  const live = row.status !== "canceled" && row.status !== "expired";
  renderPortalPage(ctx, {
    title: "Cancel your subscription",
    project,
    member: { name: memberName(member) },
    ...(notice ? { status: notice.status } : {}),
    body: html`<h1>Cancel your subscription</h1>
      ${notice?.html ?? ""}
      <p>Plan: <strong>${planName}</strong></p>
      ${
        live
          ? html`<p>If you cancel:</p>
              <ul class="terms">
                ${cancellationTerms(row).map((line) => html`<li>${line}</li>`)}
              </ul>
              <form method="post" action="${cancelPath(project.handle, row.id)}" class="actions">
                ${csrfField(ctx)}
                <button type="submit" class="danger">Cancel subscription</button>
                <a href="${portalPath(project.handle, "/account")}">Keep my subscription</a>
              </form>`
          : html`${notice ? "" : portalNotice("info", notLiveText(row))}
              <p><a href="${portalPath(project.handle, "/account")}">Back to your membership</a></p>`
      }`,
  });
}

export async function showCancel(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const owner = await signedInOwner(ctx, deps, project);
  if (!owner) return;
  renderCancelPage(ctx, project, owner.member, await ownSubscription(ctx, deps, project, owner.member, owner.id));
}

export async function confirmCancel(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  await readPageForm(ctx);
  const owner = await signedInOwner(ctx, deps, project);
  if (!owner) return;
  const { member, id } = owner;
  const found = await ownSubscription(ctx, deps, project, member, id);
  const registry = surfaceRegistry(deps);
  try {
    const result = await cancelAsMember(portalContext(deps, project, requestIdOf(ctx)), registry, { projectId: project.id, memberId: member.id }, id);
    const after = { row: result.subscription, planName: result.planName };
    const text =
      result.kind === "cancelled" ? `Your subscription is cancelled. ${cancellationTerms(found.row).join(" ")}` : notLiveText(result.subscription);
    renderCancelPage(ctx, project, member, after, { status: 200, html: portalNotice(result.kind === "cancelled" ? "success" : "info", text) });
  } catch (err) {
    if (!(err instanceof ApiError) || (err.code !== "PAYMENT_METHOD_NOT_CONFIGURED" && err.code !== "SERVICE_BUSY")) throw err;
    const provider = PROVIDER_NAMES[found.row.provider ?? ""] ?? "The payment provider";
    if (err.headers["Retry-After"]) ctx.set("Retry-After", err.headers["Retry-After"]);
    const text = `${provider} could not be reached to stop the renewals, so nothing was changed: you are still subscribed. Try again in a moment; if this keeps happening, contact the community.`;
    renderCancelPage(ctx, project, member, found, { status: 503, html: portalNotice("error", text) });
  }
}
