// The public addresses the reference pages name; the guides' {base_url}-style placeholders (the
// description's own names) are replaced with them.
export interface DocsAddresses {
  baseUrl: string;
  mcpUrl: string;
  authUrl: string;
  siteUrl: string;
  docsUrl: string;
}

/** Replaces exactly the five address placeholders; other braces (`{id}` in paths) stay. */
export function withAddresses(text: string, a: DocsAddresses): string {
  const values: Record<string, string> = { base_url: a.baseUrl, mcp_url: a.mcpUrl, auth_url: a.authUrl, site_url: a.siteUrl, docs_url: a.docsUrl };
  return text.replace(/\{(base_url|mcp_url|auth_url|site_url|docs_url)\}/g, (_, name: string) => values[name]!);
}
