// What the Payments and refunds page tests share: a Stripe twin, the API receiving its Connect
// events and the auth host sharing its Stripe, for a describe block; a creator signed in on the
// auth host; the connect form posted (answering the twin's onboarding address it redirects to); and
// addresses the twin sends the browser back to followed on the auth host.
import assert from "node:assert/strict";
import { startAuth } from "../../helpers/auth.ts";
import { TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { startApi } from "../../helpers/server.ts";
import { startStripeTwin, type StripeTwin } from "../../../src/simulators/stripe/index.ts";

export interface StripePages {
  twin: StripeTwin;
  api: Awaited<ReturnType<typeof startApi>>;
  auth: Awaited<ReturnType<typeof startAuth>>;
}

/** The twin, the API (its Connect events' receiver) and the auth host, started before the block's tests and closed after. */
export function useStripePages(): StripePages {
  const hosts = {} as StripePages;
  before(async () => {
    hosts.twin = await startStripeTwin();
    hosts.api = await startApi({ stripeTwin: hosts.twin });
    hosts.auth = await startAuth({ stripe: hosts.api.deps.stripe! });
  });
  after(async () => {
    await hosts.auth?.close();
    await hosts.api?.close();
    await hosts.twin?.close();
  });
  return hosts;
}

export function paymentsPages(hosts: () => { twin: StripeTwin; authUrl: string }) {
  async function signedIn(creator: TestCreator, base = hosts().authUrl): Promise<FormBrowser> {
    const browser = new FormBrowser(base);
    const res = await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in");
    assert.equal(res.status, 302);
    return browser;
  }

  /** Posts the connect form; answers the twin's onboarding address it was sent to. */
  async function connect(browser: FormBrowser, projectId: string, currencies = "USD"): Promise<string> {
    const res = await browser.post(`/payments/projects/${projectId}/stripe`, { currencies }, "/payments");
    assert.equal(res.status, 303, await res.text());
    const location = res.headers.get("location")!;
    assert.ok(location.startsWith(`${hosts().twin.url}/setup/e/acct_`), location);
    return location;
  }

  /** Follows an address of the auth host the twin sent the browser to; answers where the page sends it next. */
  async function follow(browser: FormBrowser, url: string): Promise<Response> {
    assert.ok(url.startsWith(hosts().authUrl), url);
    return browser.get(url.slice(hosts().authUrl.length));
  }

  const accountOf = (onboarding: string) => /\/setup\/e\/(acct_[A-Za-z0-9]+)\//.exec(onboarding)![1]!;

  return { signedIn, connect, follow, accountOf };
}
