// The one way the dashboard reaches SubBridge's data: the public SDK, with the signed-in creator's
// access token added to each request (and renewed once when the API says it is no longer valid).
import { createClient, type SubBridgeClient } from "@subbridge/sdk";
import type { DashboardConfig } from "./config";
import { accessToken, forgetAccessToken } from "./auth";

export function dashboardClient(config: DashboardConfig): SubBridgeClient {
  const authorised = async (request: Request): Promise<Request> => {
    const headers = new Headers(request.headers);
    headers.set("Authorization", `Bearer ${await accessToken(config)}`);
    return new Request(request, { headers });
  };
  return createClient({
    baseUrl: config.apiUrl,
    timeoutMs: 30_000,
    fetch: async (request) => {
      const spare = request.clone();
      const response = await fetch(await authorised(request));
      if (response.status !== 401) return response;
      forgetAccessToken();
      return fetch(await authorised(spare));
    },
  });
}
