// The marketing pages of {site_url}: home, pricing, connectors and developers, each with its
// Markdown twin, all carrying the discovery Link header, and the site's stylesheet.
import type { DiscoveryDeps } from "../../../http/discovery-document.ts";
import type { Router } from "@koa/router";
import type { ConnectorRegistry } from "../../../modules/connectors/registry.ts";
import { mountMarkdownPages } from "../pages/markdown-routes.ts";
import { mountSiteAssets, SITE_STYLESHEET } from "../pages/assets.ts";
import type { Shell } from "../pages/layout.ts";
import type { SiteAddresses } from "./addresses.ts";
import { marketingLinkHeader } from "./link-header.ts";
import { homePage } from "./home-page.ts";
import { pricingPage } from "./pricing-page.ts";
import { connectorsPage } from "./connectors-page.ts";
import { developersPage } from "./developers-page.ts";

export interface MarketingDeps extends SiteAddresses {
  /** The loaded connector packages and the operator's catalog file: the connectors page. */
  connectors: ConnectorRegistry;
}

export function marketingShell(a: SiteAddresses): Shell {
  return {
    siteName: "SubBridge",
    home: "/",
    nav: [
      { href: "/pricing", label: "Pricing" },
      { href: "/connectors", label: "Connectors" },
      { href: "/developers", label: "Developers" },
      { href: `${a.docsUrl}/`, label: "Docs" },
      { href: `${a.authUrl}/sign-in`, label: "Sign in" },
    ],
    footer: [
      { href: "/", label: "Home" },
      { href: `${a.docsUrl}/reference`, label: "API reference" },
      { href: "/llms.txt", label: "llms.txt" },
    ],
  };
}

/** `discovery`: where the Markdown twins, discovery documents, count their per-IP budget. */
export function mountMarketingPages(router: Router, deps: MarketingDeps, discovery: DiscoveryDeps): void {
  const pages = [homePage(deps, deps.connectors), pricingPage(deps), connectorsPage(deps, deps.connectors), developersPage(deps)];
  // The Markdown twins are discovery documents (service description, "Discovery documents").
  mountMarkdownPages(router, pages, { shell: marketingShell(deps), headers: { Link: marketingLinkHeader(deps) }, discovery });
  mountSiteAssets(router, SITE_STYLESHEET);
}
