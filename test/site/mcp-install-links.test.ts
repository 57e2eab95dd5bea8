// The MCP server's one-click install links, decoded back: each client's link names the server and
// carries exactly the configuration its documented format expects, for this deployment's address.
import assert from "node:assert/strict";
import { cursorInstallMarkdown, mcpInstallLinks, vscodeInstallMarkdown } from "../../src/apps/docs/pages/mcp-install.ts";
import { renderMarkdown } from "../../src/apps/site/pages/markdown.ts";

/** The JSON after `vscode:mcp/install?` (the whole query is the URL-encoded server). */
function vscodeServer(link: string, scheme: string): unknown {
  assert.ok(link.startsWith(`${scheme}:mcp/install?`), link);
  return JSON.parse(decodeURIComponent(link.slice(`${scheme}:mcp/install?`.length)));
}

function cursorConfig(link: string): { name: string | null; config: unknown } {
  const params = new URL(link).searchParams;
  return { name: params.get("name"), config: JSON.parse(Buffer.from(params.get("config")!, "base64").toString("utf8")) };
}

describe("MCP one-click install links", () => {
  for (const mcpUrl of ["https://mcp.example.com/mcp", "http://localhost:4002/mcp?toolsets=default,support&x=(a)'b'"]) {
    it(`decode back to the server's configuration for ${mcpUrl}`, () => {
      const links = mcpInstallLinks(mcpUrl);
      assert.deepEqual(vscodeServer(links.vscode, "vscode"), { name: "subbridge", type: "http", url: mcpUrl });
      assert.deepEqual(vscodeServer(links.vscodeInsiders, "vscode-insiders"), { name: "subbridge", type: "http", url: mcpUrl });

      const web = new URL(links.vscodeWeb);
      assert.equal(web.origin + web.pathname, "https://vscode.dev/redirect/mcp/install");
      assert.equal(web.searchParams.get("name"), "subbridge");
      assert.deepEqual(JSON.parse(web.searchParams.get("config")!), { type: "http", url: mcpUrl });

      assert.ok(links.cursor.startsWith("cursor://anysphere.cursor-deeplink/mcp/install?"), links.cursor);
      assert.deepEqual(cursorConfig(links.cursor), { name: "subbridge", config: { url: mcpUrl } });
      assert.ok(links.cursorWeb.startsWith("https://cursor.com/install-mcp?"), links.cursorWeb);
      assert.deepEqual(cursorConfig(links.cursorWeb), { name: "subbridge", config: { url: mcpUrl } });

      // Safe as Markdown link targets: nothing a Markdown parser would end the link at.
      for (const link of Object.values(links)) assert.doesNotMatch(link, /[\s()<>"']/, link);
    });
  }

  it("survive the guide's Markdown: the rendered hrefs are the links", () => {
    const mcpUrl = "https://mcp.example.com/mcp";
    const links = mcpInstallLinks(mcpUrl);
    const hrefs = [...renderMarkdown(`${vscodeInstallMarkdown(mcpUrl)}\n\n${cursorInstallMarkdown(mcpUrl)}\n`).matchAll(/href="([^"]*)"/g)].map((m) =>
      m[1]!.replaceAll("&amp;", "&"),
    );
    assert.deepEqual(hrefs, [links.vscode, links.vscodeInsiders, links.vscodeWeb, links.cursor, links.cursorWeb]);
  });
});
