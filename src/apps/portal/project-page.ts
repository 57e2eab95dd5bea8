// GET /<handle>: the project's public page - its plans (price, cycle, what each grants; ?plan=<id>
// highlights one and says how to subscribe: through the bot, as no payment is taken here), the
// connectors' portal buttons through each installation's start link, access-code redemption, and
// the sign-in through a connector.
import type Koa from "koa";
import { html, type Html } from "../auth/pages/html.ts";
import { csrfField } from "../auth/pages/csrf.ts";
import { price } from "../../modules/connectors/bot/start.ts";
import type { MemberRow } from "../../modules/members/tables.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import { connectedInstallations, publishedPlans, startLink, type PortalInstallation, type PortalPlan } from "./catalog.ts";
import type { DomainContext } from "../../db/tenant.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";

export const memberName = (member: MemberRow) => member.display_name ?? member.external_user_id ?? "Member";

function planCard(entry: PortalPlan, highlighted: boolean, bot: PortalInstallation | undefined): Html {
  const { plan, resources } = entry;
  return html`<li class="plan${highlighted ? " highlighted" : ""}" id="plan-${plan.id}" ${highlighted ? html`aria-current="true"` : ""}>
    <h3>${plan.name}</h3>
    <p class="price">${price(plan)}</p>
    ${plan.trial_days > 0 ? html`<p class="trial">${plan.trial_days}-day free trial</p>` : ""}
    ${plan.description ? html`<p>${plan.description}</p>` : ""}
    ${
      resources.length
        ? html`<p class="includes">Includes:</p>
            <ul class="resources">
              ${resources.map((r) => html`<li>${r.title}${r.label ? html` <span class="kind">${r.label}</span>` : ""}</li>`)}
            </ul>`
        : ""
    }
    ${
      bot
        ? html`<a class="button${highlighted ? "" : " secondary"}" href="${startLink(bot.installation, plan.id)}"
            >Subscribe in ${bot.connectorName}</a
          >`
        : ""
    }
  </li>`;
}

function howToSubscribe(entry: PortalPlan, bot: PortalInstallation | undefined): Html {
  const how = bot
    ? html`Payments are not taken on this page: press <strong>Subscribe in ${bot.connectorName}</strong> below and the bot opens the checkout for this
        plan.`
    : html`This community has no connected bot yet, so the plan cannot be bought right now.`;
  return portalNotice("info", html`You picked <strong>${entry.plan.name}</strong> (${price(entry.plan)}). ${how}`);
}

export function redeemForm(ctx: Koa.Context, handle: string): Html {
  return html`<form method="post" action="${portalPath(handle, "/redeem")}" class="redeem">
    ${csrfField(ctx)}
    <label for="access-code">Access code</label>
    <input id="access-code" name="code" type="text" autocomplete="off" spellcheck="false" required maxlength="64" />
    <button type="submit">Redeem</button>
  </form>`;
}

function signInForms(ctx: Koa.Context, handle: string, installations: PortalInstallation[]): Html {
  const usable = installations.filter((i) => i.signIn);
  if (!usable.length) return html`<p>Signing in is not available for this community yet.</p>`;
  return html`<p>Your membership is tied to your account on the community's platform. Confirm it there to sign in here.</p>
    <div class="actions">
      ${usable.map(
        (i) =>
          html`<form method="post" action="${portalPath(handle, "/sign-in")}">
            ${csrfField(ctx)}<input type="hidden" name="installation" value="${i.installation.id}" />
            <button type="submit">Sign in with ${i.connectorName}</button>
          </form>`,
      )}
    </div>`;
}

export interface ProjectPageOptions {
  member: MemberRow | null;
  alert?: string;
  status?: number;
}

export async function renderProjectPage(
  ctx: Koa.Context,
  deps: PortalDeps,
  domain: DomainContext,
  project: PortalProject,
  options: ProjectPageOptions,
) {
  const [plans, installations] = await Promise.all([
    publishedPlans(domain, deps.connectors, project.id),
    connectedInstallations(domain, deps.connectors, project.id),
  ]);
  const wanted = typeof ctx.query.plan === "string" ? ctx.query.plan.toLowerCase() : null;
  const picked = plans.find((p) => p.plan.id === wanted);
  const bot = installations[0];
  const ctas = installations.filter((i) => i.cta);
  const { member } = options;
  const body = html`<h1>${project.name}</h1>
    ${project.description ? html`<p class="lead">${project.description}</p>` : ""}
    ${project.status === "archived" ? portalNotice("info", "This community is closed to new members.") : ""}
    ${options.alert ? portalNotice("error", options.alert) : ""} ${picked ? howToSubscribe(picked, bot) : ""}
    ${wanted && !picked ? portalNotice("info", "That plan is not on sale any more; here is what the community offers now.") : ""}
    <section aria-labelledby="plans-heading">
      <h2 id="plans-heading">Plans</h2>
      ${
        plans.length
          ? html`<ul class="plans">
              ${plans.map((p) => planCard(p, p === picked, bot))}
            </ul>`
          : html`<p>No plans are on sale right now.</p>`
      }
    </section>
    ${
      ctas.length
        ? html`<section aria-labelledby="open-heading">
            <h2 id="open-heading">Open the community</h2>
            <div class="actions">
              ${ctas.map(
                (i) =>
                  html`<a class="button cta cta-${i.installation.connector_key}" href="${startLink(i.installation, `project_${project.id}`)}"
                    >${i.cta}</a
                  >`,
              )}
            </div>
          </section>`
        : ""
    }
    <section aria-labelledby="code-heading">
      <h2 id="code-heading">Have an access code?</h2>
      ${member ? html`<p>Redeem it for your membership as ${memberName(member)}.</p>` : html`<p>Sign in first: the code is redeemed for your account.</p>`}
      ${redeemForm(ctx, project.handle)}
    </section>
    ${
      member
        ? html`<section aria-labelledby="account-heading">
            <h2 id="account-heading">Your membership</h2>
            <p><a href="${portalPath(project.handle, "/account")}">See your subscriptions and access</a></p>
          </section>`
        : html`<section aria-labelledby="sign-in-heading">
            <h2 id="sign-in-heading">Members</h2>
            ${signInForms(ctx, project.handle, installations)}
          </section>`
    }
    ${
      project.terms_url || project.privacy_url
        ? html`<p class="legal">
            ${project.terms_url ? html`<a href="${project.terms_url}">Terms</a>` : ""}
            ${project.privacy_url ? html`<a href="${project.privacy_url}">Privacy</a>` : ""}
          </p>`
        : ""
    }`;
  renderPortalPage(ctx, {
    title: picked ? picked.plan.name : "Plans",
    body,
    project,
    ...(member ? { member: { name: memberName(member) } } : {}),
    ...(options.status ? { status: options.status } : {}),
  });
}
