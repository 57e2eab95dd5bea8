// The markup of the tokens page: the team choice (a GET form, so choosing a team and then its
// projects works without JavaScript), the mint form (abilities by category, name, projects), the
// token shown once after minting (with a copy button the asset script reveals), the list and the
// delete confirmation.
import type Koa from "koa";
import { csrfField } from "./csrf.ts";
import { html, type Html } from "./html.ts";
import { field } from "./account-pages.ts";
import { notice } from "./layout.ts";
import { abilityGroups } from "./token-abilities.ts";

export interface MintChoice {
  team: { id: string; name: string };
  teams: { id: string; name: string }[];
  projects: { id: string; name: string }[];
  /** What the creator's place on the team lets them put on a token. */
  allowed: ReadonlySet<string>;
  owner: boolean;
}

export interface MintValues {
  name: string;
  abilities: string[];
  projectIds: string[];
  errors: { name?: string; abilities?: string; projects?: string; general?: string };
}

export const emptyMint: MintValues = { name: "", abilities: [], projectIds: [], errors: {} };

export interface ListedToken {
  id: string;
  name: string;
  kind: string;
  abilities: string[];
  projects: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  team: { id: string; name: string };
}

const STATUS_NOTE: Record<string, string> = { coming: "grants nothing yet", no_api: "no API surface", rest_only: "REST only" };

function when(iso: string): Html {
  const d = new Date(iso);
  return html`<time datetime="${iso}">${d.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;
}

export function mintedSection(minted: { token: string; name: string; team: string; abilities: number }): Html {
  return html`<section class="minted" aria-labelledby="minted-heading">
    <h2 id="minted-heading">Your new token “${minted.name}”</h2>
    ${notice(
      "success",
      `Copy it now: this is the only time it is shown. It acts on the team ${minted.team} with ${minted.abilities} abilit${minted.abilities === 1 ? "y" : "ies"}.`,
    )}
    <p class="field">
      <label for="new-token">Token</label>
      <input id="new-token" class="secret" type="text" readonly value="${minted.token}" autocomplete="off" spellcheck="false" />
    </p>
    <p class="copy-row">
      <button type="button" class="secondary" data-copy="new-token" hidden>Copy token</button>
      <span class="copy-status" role="status" aria-live="polite"></span>
    </p>
  </section>`;
}

function teamChoiceForm(choice: MintChoice): Html {
  return html`<form method="get" action="/tokens#mint-heading" class="team-choice">
    <p class="field">
      <label for="mint-team">Team</label>
      <span class="hint" id="mint-team-hint"
        >A token acts on one team, fixed when it is minted. Choose the team first: its projects are listed below.</span
      >
      <select id="mint-team" name="team" aria-describedby="mint-team-hint">
        ${choice.teams.map((t) => html`<option value="${t.id}" ${t.id === choice.team.id ? html`selected` : ""}>${t.name}</option>`)}
      </select>
    </p>
    <button type="submit" class="secondary">Choose this team</button>
  </form>`;
}

function projectsFieldset(choice: MintChoice, values: MintValues): Html {
  return html`<fieldset aria-describedby="projects-hint${values.errors.projects ? " projects-error" : ""}">
    <legend>Projects (optional)</legend>
    <p class="hint" id="projects-hint">Tick none and the token works on every project of ${choice.team.name}, also those created later.</p>
    ${values.errors.projects ? html`<p class="field-error" id="projects-error">${values.errors.projects}</p>` : ""}
    ${
      choice.projects.length === 0
        ? html`<p>This team has no projects yet.</p>`
        : html`<ul class="checks">
            ${choice.projects.map(
              (p) =>
                html`<li>
                  <label
                    ><input type="checkbox" name="project_id" value="${p.id}" ${values.projectIds.includes(p.id) ? html`checked` : ""} />
                    ${p.name}</label
                  >
                </li>`,
            )}
          </ul>`
    }
  </fieldset>`;
}

function abilitiesFieldsets(choice: MintChoice, values: MintValues): Html {
  return html`<h3 id="abilities-heading">Abilities</h3>
    <p class="hint" id="abilities-hint">
      Tick what the token may do; it never does more.
      ${choice.owner ? "You own this team: every ability can be given." : "Abilities your role on this team does not grant cannot be given."}
    </p>
    ${values.errors.abilities ? html`<p class="field-error" id="abilities-error">${values.errors.abilities}</p>` : ""}
    <div role="group" aria-labelledby="abilities-heading" aria-describedby="abilities-hint${values.errors.abilities ? " abilities-error" : ""}">
      ${abilityGroups.map(
        (group) =>
          html`<fieldset class="abilities">
            <legend>${group.description}</legend>
            <ul class="checks">
              ${group.abilities.map((a) => {
                const allowed = choice.allowed.has(a.value);
                const note = [STATUS_NOTE[a.status], allowed ? "" : "not granted by your role"].filter(Boolean).join("; ");
                return html`<li>
                  <label class="${allowed ? "" : "unavailable"}"
                    ><input
                      type="checkbox"
                      name="ability"
                      value="${a.value}"
                      ${values.abilities.includes(a.value) && allowed ? html`checked` : ""}
                      ${allowed ? "" : html`disabled`}
                    />
                    <code>${a.value}</code>${note ? html` <span class="hint">(${note})</span>` : ""}</label
                  >
                </li>`;
              })}
            </ul>
          </fieldset>`,
      )}
    </div>`;
}

/** At the top of the page (the list comes first): why nothing was minted, with a link to the form. */
export function mintRefused(values: MintValues): Html {
  return notice("error", html`${values.errors.general ?? "The token was not minted."} <a href="#mint-heading">See the form</a>.`);
}

export function mintSection(ctx: Koa.Context, choice: MintChoice, values: MintValues): Html {
  return html`<section aria-labelledby="mint-heading">
    <h2 id="mint-heading">Mint a token</h2>
    ${teamChoiceForm(choice)}
    <form method="post" action="/tokens" class="mint" novalidate>
      ${csrfField(ctx)}<input type="hidden" name="team_id" value="${choice.team.id}" />
      <p>The token will act on the team <strong>${choice.team.name}</strong>.</p>
      ${field({
        name: "name",
        label: "Name",
        value: values.name,
        hint: "What the token is for, so you recognise it in the list.",
        ...(values.errors.name ? { error: values.errors.name } : {}),
      })}
      ${projectsFieldset(choice, values)} ${abilitiesFieldsets(choice, values)}
      <button type="submit">Mint token</button>
    </form>
  </section>`;
}

export function tokenList(tokens: ListedToken[]): Html {
  return html`<section aria-labelledby="list-heading">
    <h2 id="list-heading">Your tokens</h2>
    <p class="hint">Every token you hold, on each of your teams. Agent registrations you confirmed are listed under the agent's name.</p>
    ${
      tokens.length === 0
        ? html`<p>You have no tokens yet.</p>`
        : html`<table class="tokens">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Team</th>
                <th scope="col">Abilities</th>
                <th scope="col">Projects</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${tokens.map(
                (t) =>
                  html`<tr data-token-id="${t.id}">
                    <th scope="row">${t.name} ${t.kind === "agent_registration" ? html`<span class="badge">Agent registration</span>` : ""}</th>
                    <td>${t.team.name}</td>
                    <td>
                      <details>
                        <summary>${t.abilities.length}</summary>
                        <ul class="plain">
                          ${t.abilities.map((a) => html`<li><code>${a}</code></li>`)}
                        </ul>
                      </details>
                    </td>
                    <td>${t.projects === null ? "All projects" : t.projects.join(", ")}</td>
                    <td>${when(t.createdAt)}</td>
                    <td>${t.lastUsedAt ? when(t.lastUsedAt) : "Never"}</td>
                    <td><a href="/tokens/${t.id}/delete?team=${t.team.id}" aria-label="Delete ${t.name}">Delete</a></td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

export function deleteConfirmation(ctx: Koa.Context, token: ListedToken): Html {
  return html`<p>
      Delete the token <strong>${token.name}</strong>
      ${token.kind === "agent_registration" ? html`<span class="badge">Agent registration</span>` : ""} on the team ${token.team.name}?
    </p>
    <p>Anything using it is refused from its next call. This cannot be undone.</p>
    <form method="post" action="/tokens/${token.id}/delete" class="actions">
      ${csrfField(ctx)}<input type="hidden" name="team_id" value="${token.team.id}" />
      <button type="submit" class="danger">Delete token</button>
      <a href="/tokens">Keep it</a>
    </form>`;
}
