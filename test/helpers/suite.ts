// The common setup of HTTP test files: an API server and a creator whose token has every
// grantable ability. Registers mocha hooks; read the fields inside tests (they are set by then).
import { startApi, type RunningApi, type StartOptions } from "./server.ts";
import { ApiClient } from "./http.ts";
import { createTestCreator, type TestCreator } from "./fixtures.ts";
import { startStripeTwin, type StripeTwin } from "../../src/simulators/stripe/index.ts";
import type { StripePayments } from "../../src/modules/payments/stripe/stripe-payments.ts";

export interface ApiSuite {
  api: RunningApi;
  creator: TestCreator;
  /** Authenticated as the creator's full token. */
  client: ApiClient;
}

export function useApiWithCreator(options: { api?: StartOptions; creator?: Parameters<typeof createTestCreator>[0] } = {}): ApiSuite {
  const suite = {} as ApiSuite;
  before(async () => {
    suite.api = await startApi(options.api);
    suite.creator = await createTestCreator(options.creator);
    suite.client = new ApiClient(suite.api.url, suite.creator.token);
  });
  after(() => suite.api?.close());
  return suite;
}

export interface StripeApiSuite extends ApiSuite {
  /** The Stripe twin the API takes payments on (its Connect endpoint points at the API's route). */
  twin: StripeTwin;
  /** The API's Stripe: the twin's client and the endpoint's secret. */
  stripe: StripePayments;
}

/** useApiWithCreator with a Stripe twin started first and closed after the API. */
export function useApiWithStripeTwin(
  options: { twin?: Parameters<typeof startStripeTwin>[0]; creator?: Parameters<typeof createTestCreator>[0] } = {},
): StripeApiSuite {
  const suite = {} as StripeApiSuite;
  const api: StartOptions = {};
  before(async () => {
    suite.twin = await startStripeTwin(options.twin);
    api.stripeTwin = suite.twin;
  });
  const inner = useApiWithCreator({ api, ...(options.creator ? { creator: options.creator } : {}) });
  before(() => {
    Object.assign(suite, inner);
    suite.stripe = inner.api.deps.stripe as StripePayments;
  });
  after(() => suite.twin?.close());
  return suite;
}
