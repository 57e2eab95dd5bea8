// The public addresses the marketing pages link to; each page is Markdown built from them.
export interface SiteAddresses {
  siteUrl: string;
  baseUrl: string;
  mcpUrl: string;
  authUrl: string;
  docsUrl: string;
}

export const SDK_PACKAGE_URL = "https://www.npmjs.com/package/@subbridge/sdk";
