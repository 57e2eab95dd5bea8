// The common setup of HTTP test files: an API server and a creator whose token has every
// grantable ability. Registers mocha hooks; read the fields inside tests (they are set by then).
import { startApi, type RunningApi, type StartOptions } from "./server.ts";
import { ApiClient } from "./http.ts";
import { createTestCreator, type TestCreator } from "./fixtures.ts";

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
