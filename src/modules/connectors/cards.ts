// Catalog cards (GET /v1/connectors): a loaded package's card from its manifest, with every
// creator-readable string replaced by its English text from lang/en.json; an announced
// connector's card from the operator's catalog file.
import type { components } from "../../../generated/openapi.d.ts";
import type { Field } from "../../../generated/connector-manifest.d.ts";
import type { ConnectorPackage } from "./connector-package.ts";
import type { UpcomingConnector } from "./catalog-file.ts";
import type { PlatformEndpoints } from "../../config.ts";
import { driverFor } from "./drivers/index.ts";

export type ConnectorCard = components["schemas"]["ConnectorCard"];
export type PackageStatus = Extract<ConnectorCard["status"], "available" | "paused">;

/** A manifest field as a form shows it: English strings, the package's :app placeholder named. */
function formField(field: Field, english: (text: string) => string): components["schemas"]["ConnectorFormField"] {
  const text = (value: string) => english(value).replaceAll(":app", "SubBridge");
  return {
    name: field.name,
    type: field.type,
    label: text(field.label),
    help: field.help === undefined ? null : text(field.help),
    required: field.required === true,
    options: Object.entries(field.options ?? {}).map(([value, label]) => ({ value, label: text(label ?? value) })),
    // `:button` stays: only the form showing the steps knows its submitting button's label.
    steps: (field.steps ?? []).map(text),
    links: Object.entries(field.links ?? {}).flatMap(([linked, url]) => (url ? [{ text: english(linked), url }] : [])),
  };
}

export function packageCard(pkg: ConnectorPackage, status: PackageStatus): ConnectorCard {
  const { manifest } = pkg;
  const { listing } = manifest;
  // Loading refused any package whose strings lack a translation, so the fallback never shows.
  const english = (text: string) => pkg.english[text] ?? text;
  const marketing = listing.marketing;
  return {
    key: manifest.key,
    name: english(manifest.name),
    status,
    installable: status === "available",
    category: listing.category,
    tagline: english(listing.tagline),
    overview: english(listing.overview),
    icon: manifest.key,
    version: manifest.version,
    vendor: manifest.vendor,
    install: {
      mode: manifest.install.mode,
      scopes: [...manifest.install.scopes],
      fields: (manifest.install.fields ?? []).map((f) => formField(f, english)),
      settings_fields: (manifest.install.settings_fields ?? []).map((f) => formField(f, english)),
      // The deployment's own application fills it in (deploymentCard): a package names none.
      authorize_url: null,
    },
    capabilities: [...(manifest.capabilities ?? [])],
    resource_kinds: (manifest.resource_kinds ?? []).map((k) => ({
      kind: k.kind,
      label: english(k.label),
      portal_label: english(k.portal_label),
      icon: k.icon,
      grant_mode: k.grant_mode,
    })),
    links: { ...listing.links },
    changelog_url: listing.changelog_url ?? null,
    screenshots: [...(listing.screenshots ?? [])],
    marketing: marketing
      ? {
          audience: english(marketing.audience),
          place: english(marketing.place),
          places: english(marketing.places),
          installation: english(marketing.installation),
          identity: english(marketing.identity),
          ...(marketing.native_payment !== undefined ? { native_payment: english(marketing.native_payment) } : {}),
        }
      : null,
    // The description: the button's icon defaults to the connector's own icon.
    portal_cta: listing.portal_cta ? { label: english(listing.portal_cta.label), icon: listing.portal_cta.icon ?? manifest.key } : null,
    sign_in_required: listing.sign_in_required ?? false,
    added_at: listing.added_at,
  };
}

/** The card as this deployment offers it: an OAuth install's consent screen for the deployment's own application. */
export function deploymentCard(card: ConnectorCard, platforms: PlatformEndpoints): ConnectorCard {
  if (card.install?.mode !== "oauth") return card;
  const authorizeUrl = driverFor(card.key, platforms)?.installAuthorizeUrl?.() ?? null;
  return { ...card, install: { ...card.install, authorize_url: authorizeUrl } };
}

export function upcomingCard(entry: UpcomingConnector): ConnectorCard {
  return {
    key: entry.key,
    name: entry.name,
    status: entry.status,
    installable: false,
    category: entry.category,
    tagline: entry.tagline,
    overview: entry.overview,
    icon: entry.key,
    version: null,
    vendor: null,
    install: null,
    capabilities: [],
    resource_kinds: [],
    links: {},
    changelog_url: null,
    screenshots: [],
    marketing: null,
    portal_cta: null,
    sign_in_required: null,
    added_at: entry.added_at,
  };
}
