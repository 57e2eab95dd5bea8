// One-click install links for the MCP server, made from the deployment's MCP address so they always
// name the server this deployment runs. Each client's documented format: VS Code's URL handler
// `vscode:mcp/install?<URL-encoded JSON {name, type, url}>` (and its https redirect on vscode.dev,
// name and config as separate parameters, for where a custom scheme is not followed), and Cursor's
// deeplink `cursor://anysphere.cursor-deeplink/mcp/install?name=<name>&config=<base64 JSON {url}>`
// (and its https form on cursor.com). The links add the server without a token: the client signs
// in with OAuth, so no credential ever sits in a link.

/** The name the server is added under, as in the guide's configuration snippets. */
export const MCP_SERVER_NAME = "subbridge";

export interface McpInstallLinks {
  vscode: string;
  vscodeInsiders: string;
  /** The https redirect that opens VS Code (for pages that cannot link a custom scheme). */
  vscodeWeb: string;
  cursor: string;
  /** The https page on cursor.com that opens Cursor. */
  cursorWeb: string;
}

/** encodeURIComponent leaves `(`, `)`, `'`, `!` and `*` as they are; a Markdown link target must not hold a bare parenthesis. */
function component(text: string): string {
  return encodeURIComponent(text).replace(/[()'!*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function mcpInstallLinks(mcpUrl: string, name = MCP_SERVER_NAME): McpInstallLinks {
  const vscodeConfig = { type: "http", url: mcpUrl };
  const vscodeServer = component(JSON.stringify({ name, ...vscodeConfig }));
  const vscodeQuery = `name=${component(name)}&config=${component(JSON.stringify(vscodeConfig))}`;
  const cursorQuery = `name=${component(name)}&config=${component(Buffer.from(JSON.stringify({ url: mcpUrl })).toString("base64"))}`;
  return {
    vscode: `vscode:mcp/install?${vscodeServer}`,
    vscodeInsiders: `vscode-insiders:mcp/install?${vscodeServer}`,
    vscodeWeb: `https://vscode.dev/redirect/mcp/install?${vscodeQuery}`,
    cursor: `cursor://anysphere.cursor-deeplink/mcp/install?${cursorQuery}`,
    cursorWeb: `https://cursor.com/install-mcp?${cursorQuery}`,
  };
}

/** The guide's line under its VS Code snippet. */
export function vscodeInstallMarkdown(mcpUrl: string): string {
  const links = mcpInstallLinks(mcpUrl);
  return (
    `**One-click install:** [Install in VS Code](${links.vscode}) · [Install in VS Code Insiders](${links.vscodeInsiders}) ` +
    `(or [through vscode.dev](${links.vscodeWeb}) if your browser does not open VS Code). The link adds the server ` +
    "without a token: VS Code signs in with OAuth when you first use it."
  );
}

/** The guide's line under its Cursor snippet. */
export function cursorInstallMarkdown(mcpUrl: string): string {
  const links = mcpInstallLinks(mcpUrl);
  return (
    `**One-click install:** [Install in Cursor](${links.cursor}) (or [through cursor.com](${links.cursorWeb}) if your ` +
    "browser does not open Cursor). The link adds the server without a token: Cursor signs in with OAuth when you first use it."
  );
}
