// The security page (/security): the authenticator app (set up with a QR code or the key typed by
// hand, confirmed with a code; turned off with a current code), recovery codes (shown once when
// issued), and passkeys (listed, added through the passkey script, removed). Every change is a
// CSRF-checked POST; passkeys are added through JSON endpoints under /security/passkeys. Every
// change, and every page showing a factor's secret, needs a recent confirmation that it is the
// creator (./reauthentication.ts): a copied session cookie alone changes nothing.
import type { Router } from "@koa/router";
import type Koa from "koa";
import QRCode from "qrcode";
import type { AuthDeps } from "../deps.ts";
import type { RequestState } from "../../../http/request.ts";
import type { FactorOwner } from "../../../modules/account/factor-changes.ts";
import { addPasskey, passkeyRegistrationOptions, passkeysOf, PASSKEY_NAME_MAX, removePasskey } from "../../../modules/account/passkeys.ts";
import { regenerateRecoveryCodes, RECOVERY_CODE_COUNT, unusedRecoveryCodeCount } from "../../../modules/account/recovery-codes.ts";
import { confirmTotpEnrolment, disableTotp, pendingTotpEnrolment, startTotpEnrolment, totpEnabled } from "../../../modules/account/totp.ts";
import { field } from "./account-pages.ts";
import { requireCreator, signedInCreator, type SignedIn } from "./creator.ts";
import { csrfField } from "./csrf.ts";
import { readPageForm } from "./forms.ts";
import { PageError } from "./page-error.ts";
import { html } from "./html.ts";
import {
  mountReauthentication,
  reauthenticated,
  reauthenticatedUntil,
  reauthenticationForms,
  refuseUnlessReauthenticated,
} from "./reauthentication.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";
import { keepChallenge, PASSKEY_SCRIPTS, passkeyControl, passkeyEndpoint, relyingParty, takeChallenge } from "./passkey-endpoints.ts";
import { secondFactorsOf } from "./second-factor.ts";
import { endOtherSessions, sessionOf } from "./session.ts";
import { countWrongCode, refuseWhenWrongCodesSpent } from "./wrong-codes.ts";
import { decrypt, encrypt } from "../../../security/crypto.ts";

/** Messages after a change, by a fixed key (nothing from the address is echoed). */
const DONE: Record<string, string> = {
  "totp-off": "The authenticator app is off. Sign-in no longer asks for its codes.",
  "passkey-added": "Passkey added.",
  "passkey-removed": "Passkey removed.",
};

function ownerOf(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn): FactorOwner {
  return {
    db: deps.db,
    userId: creator.userId,
    teamId: creator.teamId,
    requestId: (ctx.state as RequestState).requestId ?? null,
    appKey: deps.appKey,
    now: deps.now(),
  };
}

const day = (value: Date | string | null) => (value ? new Date(value).toISOString().slice(0, 10) : "never");

async function securityPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, options: { error?: string; status?: number } = {}): Promise<void> {
  const owner = ownerOf(ctx, deps, creator);
  const [totpOn, pending, passkeys, unused, factors] = await Promise.all([
    totpEnabled(deps.db, creator.userId),
    pendingTotpEnrolment(owner, creator.email),
    passkeysOf(deps.db, creator.userId),
    unusedRecoveryCodeCount(deps.db, creator.userId),
    secondFactorsOf(deps.db, creator.userId),
  ]);
  const done = typeof ctx.query.done === "string" ? DONE[ctx.query.done] : undefined;
  // Without a recent confirmation the page shows where things stand and asks for it; the change forms come after.
  const until = reauthenticatedUntil(ctx, deps, creator);
  const confirmSection = until
    ? html`<p class="hint">You confirmed it is you: changes stay open until ${until.toISOString().slice(11, 16)} UTC.</p>`
    : html`<section aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">Confirm it is you</h2>
        <p>To change how you sign in, type your password${totpOn ? " or a code from your authenticator app" : ""} first.</p>
        ${reauthenticationForms(ctx, { returnTo: "/security", totp: totpOn })}
      </section>`;
  const totpSection = !until
    ? html`<p>
        <span class="badge">${totpOn ? "On" : "Off"}</span>
        ${totpOn ? "Sign-in asks for a code from your authenticator app after your password." : "Sign-in does not ask for an authenticator app's code."}
      </p>`
    : totpOn
      ? html`<p><span class="badge">On</span> Sign-in asks for a code from your authenticator app after your password.</p>
          <form method="post" action="/security/totp/disable" class="stack">
            ${csrfField(ctx)}
            ${field({ name: "code", label: "Current code from the app", autocomplete: "one-time-code", hint: "To turn the app off, type the 6-digit code it shows now." })}
            <button type="submit" class="danger">Turn off the authenticator app</button>
          </form>`
      : html`<p><span class="badge">Off</span> Use an authenticator app (1Password, Google Authenticator, Authy...) for a code at each sign-in.</p>
          ${pending ? html`<p>A set-up was started but not confirmed. <a href="/security/totp">Continue setting up</a></p>` : ""}
          <form method="post" action="/security/totp/start">${csrfField(ctx)}<button type="submit">Set up an authenticator app</button></form>`;
  const recoverySection =
    factors.totp || factors.passkeys
      ? html`<p>${unused} of ${RECOVERY_CODE_COUNT} recovery codes unused. Each works once, in place of a code or a passkey.</p>
          ${
            until
              ? html`<form method="post" action="/security/recovery-codes">
                  ${csrfField(ctx)}<button type="submit" class="secondary">Make new recovery codes</button>
                  <span class="hint">The old codes stop working.</span>
                </form>`
              : ""
          }`
      : html`<p>You get recovery codes when you set up an authenticator app or add a passkey.</p>`;
  const passkeyList = passkeys.length
    ? html`<table class="passkeys">
        <caption class="visually-hidden">
          Your passkeys
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Added</th>
            <th scope="col">Last used</th>
            ${until ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ""}
          </tr>
        </thead>
        <tbody>
          ${passkeys.map(
            (p) =>
              html`<tr>
                <td>${p.name}</td>
                <td>${day(p.created_at)}</td>
                <td>${day(p.last_used_at)}</td>
                ${
                  until
                    ? html`<td>
                        <form method="post" action="/security/passkeys/${p.id}/remove">
                          ${csrfField(ctx)}<button type="submit" class="danger" aria-label="Remove passkey ${p.name}">Remove</button>
                        </form>
                      </td>`
                    : ""
                }
              </tr>`,
          )}
        </tbody>
      </table>`
    : html`<p>No passkeys yet.</p>`;
  renderPage(ctx, {
    title: "Security",
    creator,
    status: options.status ?? 200,
    scripts: PASSKEY_SCRIPTS,
    body: html`${options.error ? notice("error", options.error) : ""}${done ? notice("success", done) : ""} ${confirmSection}
      <section aria-labelledby="totp-heading">
        <h2 id="totp-heading">Authenticator app</h2>
        ${totpSection}
      </section>
      <section aria-labelledby="recovery-heading">
        <h2 id="recovery-heading">Recovery codes</h2>
        ${recoverySection}
      </section>
      <section aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">Passkeys</h2>
        <p>A passkey signs you in with your device's screen lock or a security key, without a password.</p>
        ${passkeyList} ${until ? addPasskeyControl(ctx) : ""}
      </section>`,
  });
}

/** The passkey script's button that adds a passkey, with the optional name. */
function addPasskeyControl(ctx: Koa.Context) {
  return passkeyControl(ctx, {
    mode: "register",
    optionsUrl: "/security/passkeys/options",
    verifyUrl: "/security/passkeys",
    label: "Add a passkey",
    intro: html`<p class="field">
      <label for="passkey-name">Passkey name (optional)</label>
      <span class="hint" id="passkey-name-hint">So you can tell your passkeys apart, for example "Work laptop".</span>
      <input id="passkey-name" name="passkey_name" type="text" maxlength="${PASSKEY_NAME_MAX}" aria-describedby="passkey-name-hint" />
    </p>`,
  });
}

async function enrolmentPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, error?: string): Promise<void> {
  const pending = await pendingTotpEnrolment(ownerOf(ctx, deps, creator), creator.email);
  if (!pending) {
    ctx.redirect("/security");
    return;
  }
  const qr = await QRCode.toString(pending.uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  const grouped = pending.secret.replace(/(.{4})/g, "$1 ").trim();
  renderPage(ctx, {
    title: "Set up an authenticator app",
    creator,
    status: error ? 422 : 200,
    body: html`${error ? notice("error", error) : ""}
      <ol class="steps">
        <li>
          <p>Scan this QR code with your authenticator app.</p>
          <img
            class="qr"
            src="data:image/svg+xml;base64,${Buffer.from(qr).toString("base64")}"
            alt="QR code that adds SubBridge to an authenticator app"
            width="200"
            height="200"
          />
        </li>
        <li>
          <p id="secret-label">Or type this key into the app (time-based, 6 digits, every 30 seconds):</p>
          <code class="secret" id="totp-secret" aria-labelledby="secret-label">${grouped}</code>
        </li>
        <li>
          <form method="post" action="/security/totp/confirm" class="stack">
            ${csrfField(ctx)}
            ${field({ name: "code", label: "Code from the app", autocomplete: "one-time-code", hint: "The 6-digit code the app shows now.", ...(error ? { error } : {}) })}
            <button type="submit">Turn on</button>
          </form>
        </li>
      </ol>
      <p><a href="/security">Back to security</a></p>`,
  });
}

function recoveryCodesPage(ctx: Koa.Context, creator: SignedIn, codes: string[], intro: string): void {
  renderPage(ctx, {
    title: "Save your recovery codes",
    creator,
    body: html`${notice("success", intro)}
      <p>
        If you lose your authenticator app or passkey, each of these codes signs you in once. Keep them somewhere safe, such as a password manager.
        <strong>They are shown only now.</strong>
      </p>
      <ol class="recovery-codes" aria-label="Recovery codes">
        ${codes.map((code) => html`<li><code>${code}</code></li>`)}
      </ol>
      <p><a href="/security">I saved them: back to security</a></p>`,
  });
}

export function mountSecurityPages(router: Router, deps: AuthDeps): void {
  const rp = relyingParty(deps);
  mountReauthentication(router, deps);

  router.register(
    "/security",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (creator) await securityPage(ctx, deps, creator);
    }),
  );

  router.register(
    "/security/totp/start",
    ["POST"],
    pageRoute(async (ctx) => {
      await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator || !(await reauthenticated(ctx, deps, creator, "/security"))) return;
      await startTotpEnrolment(ownerOf(ctx, deps, creator));
      ctx.redirect("/security/totp");
    }),
  );

  router.register(
    "/security/totp",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (creator && (await reauthenticated(ctx, deps, creator, "/security/totp"))) await enrolmentPage(ctx, deps, creator);
    }),
  );

  router.register(
    "/security/totp/confirm",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator || !(await reauthenticated(ctx, deps, creator, "/security/totp"))) return;
      const codes = await confirmTotpEnrolment(ownerOf(ctx, deps, creator), fields.code ?? "");
      if (!codes) {
        await enrolmentPage(ctx, deps, creator, "That code does not match. Check the app's clock and type the code it shows now.");
        return;
      }
      await endOtherSessions(ctx, deps.db, creator.userId);
      recoveryCodesPage(ctx, creator, codes, "Your authenticator app is on. Sign-in now asks for one of its codes.");
    }),
  );

  router.register(
    "/security/totp/disable",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator || !(await reauthenticated(ctx, deps, creator, "/security"))) return;
      await refuseWhenWrongCodesSpent(deps, creator.userId);
      if (!(await disableTotp(ownerOf(ctx, deps, creator), fields.code ?? ""))) {
        await countWrongCode(deps, creator.userId);
        await securityPage(ctx, deps, creator, {
          status: 422,
          error: "That code does not match the authenticator app (or was already used). The app is still on.",
        });
        return;
      }
      await endOtherSessions(ctx, deps.db, creator.userId);
      ctx.redirect("/security?done=totp-off");
    }),
  );

  router.register(
    "/security/recovery-codes",
    ["POST"],
    pageRoute(async (ctx) => {
      await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator || !(await reauthenticated(ctx, deps, creator, "/security"))) return;
      const factors = await secondFactorsOf(deps.db, creator.userId);
      if (!factors.totp && !factors.passkeys)
        throw new PageError(400, "Recovery codes come with an authenticator app or a passkey. Set one up first.");
      const codes = await regenerateRecoveryCodes(ownerOf(ctx, deps, creator));
      await endOtherSessions(ctx, deps.db, creator.userId);
      recoveryCodesPage(ctx, creator, codes, "New recovery codes are ready; the old ones no longer work.");
    }),
  );

  router.register(
    "/security/passkeys/:id/remove",
    ["POST"],
    pageRoute(async (ctx) => {
      await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator || !(await reauthenticated(ctx, deps, creator, "/security"))) return;
      const id = ctx.params.id ?? "";
      const removed = /^[0-9a-f-]{36}$/i.test(id) && (await removePasskey(ownerOf(ctx, deps, creator), id));
      if (!removed) throw new PageError(404, "That passkey is not one of yours, or it was already removed.");
      await endOtherSessions(ctx, deps.db, creator.userId);
      ctx.redirect("/security?done=passkey-removed");
    }),
  );

  // The passkey script: a challenge for the browser, then the credential it created.
  router.register(
    "/security/passkeys/options",
    ["POST"],
    passkeyEndpoint(async (ctx) => {
      const creator = await signedInOrRefused(ctx, deps);
      refuseUnlessReauthenticated(ctx, deps, creator);
      const options = await passkeyRegistrationOptions(deps.db, rp, creator);
      keepChallenge(ctx, "register", options.challenge, deps.now());
      return options;
    }),
  );

  router.register(
    "/security/passkeys",
    ["POST"],
    passkeyEndpoint(async (ctx, body) => {
      const creator = await signedInOrRefused(ctx, deps);
      refuseUnlessReauthenticated(ctx, deps, creator);
      const challenge = takeChallenge(ctx, "register", deps.now());
      const added = await addPasskey(ownerOf(ctx, deps, creator), rp, {
        response: body.response,
        challenge,
        name: typeof body.name === "string" ? body.name : "",
      });
      await endOtherSessions(ctx, deps.db, creator.userId);
      if (!added.recoveryCodes) return { redirect: "/security?done=passkey-added" };
      // The first second factor's recovery codes: the next page shows them once. Until then the
      // session keeps them sealed (it is stored in the database).
      sessionOf(ctx).freshRecoveryCodes = encrypt(deps.appKey, JSON.stringify(added.recoveryCodes), freshCodesBinding(creator.userId));
      return { redirect: "/security/recovery-codes/new" };
    }),
  );

  router.register(
    "/security/recovery-codes/new",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator || !(await reauthenticated(ctx, deps, creator, "/security/recovery-codes/new"))) return;
      const session = sessionOf(ctx);
      const sealed = session.freshRecoveryCodes;
      delete session.freshRecoveryCodes;
      if (typeof sealed !== "string") {
        ctx.redirect("/security");
        return;
      }
      const codes = JSON.parse(decrypt(deps.appKey, sealed, freshCodesBinding(creator.userId))) as string[];
      recoveryCodesPage(ctx, creator, codes, "Passkey added. Your recovery codes are ready too.");
    }),
  );
}

const freshCodesBinding = (userId: string) => `fresh-recovery-codes:${userId}`;

async function signedInOrRefused(ctx: Koa.Context, deps: AuthDeps): Promise<SignedIn> {
  const creator = await signedInCreator(ctx, deps.db);
  if (!creator) throw new PageError(401, "You are signed out. Sign in again, then add the passkey.");
  return creator;
}
