// What the server tells the dashboard at boot (/config.json): the public addresses it talks to.
export interface DashboardConfig {
  apiUrl: string;
  authUrl: string;
  portalUrl: string;
  docsUrl: string;
  mcpUrl: string;
  clientId: string;
  redirectUri: string;
  release: string;
}

export async function loadConfig(): Promise<DashboardConfig> {
  const response = await fetch("/config.json", { cache: "no-store" });
  if (!response.ok) throw new Error(`The dashboard's configuration did not load (${response.status}).`);
  return (await response.json()) as DashboardConfig;
}
