// The strings of a manifest that a creator (or a member) reads. The description says they are
// English keys the package translates through its own language files, so each must have an entry
// in lang/en.json. Identifiers (key, kinds, field names, rules), icon slugs, URLs and the vendor
// name are not translated.
import type { Field, ConnectorManifest } from "../generated/connector-manifest.js";
import { childPointer } from "./pointer.js";

export interface CreatorString {
  /** JSON pointer of the string in connector.json (for a link text: the link's own pointer). */
  pointer: string;
  /** The English key. */
  text: string;
  /** Set for a string the catalog card shows: the translation must follow the same rule. */
  rule?: "tagline" | "lower_case";
}

function fieldStrings(field: Field, at: string): CreatorString[] {
  const strings: CreatorString[] = [{ pointer: `${at}/label`, text: field.label }];
  if (field.help !== undefined) strings.push({ pointer: `${at}/help`, text: field.help });
  (field.steps ?? []).forEach((step, i) => strings.push({ pointer: `${at}/steps/${i}`, text: step }));
  for (const [value, label] of Object.entries(field.options ?? {})) {
    if (label !== undefined) strings.push({ pointer: childPointer(`${at}/options`, value), text: label });
  }
  // A link's text is found in the translated label, help or steps, so it is translated too.
  for (const text of Object.keys(field.links ?? {})) strings.push({ pointer: childPointer(`${at}/links`, text), text });
  return strings;
}

/** Every creator-readable string of a schema-valid manifest, with where it is. */
export function creatorStrings(manifest: ConnectorManifest): CreatorString[] {
  const strings: CreatorString[] = [{ pointer: "/name", text: manifest.name }];
  (manifest.install.fields ?? []).forEach((field, i) => strings.push(...fieldStrings(field, `/install/fields/${i}`)));
  (manifest.install.settings_fields ?? []).forEach((field, i) => strings.push(...fieldStrings(field, `/install/settings_fields/${i}`)));
  (manifest.resource_kinds ?? []).forEach((kind, i) => {
    strings.push(
      { pointer: `/resource_kinds/${i}/label`, text: kind.label },
      { pointer: `/resource_kinds/${i}/portal_label`, text: kind.portal_label },
    );
  });
  const { listing } = manifest;
  strings.push({ pointer: "/listing/tagline", text: listing.tagline, rule: "tagline" }, { pointer: "/listing/overview", text: listing.overview });
  if (listing.marketing) {
    for (const [word, text] of Object.entries(listing.marketing)) {
      if (text === undefined) continue;
      const rule = word === "place" || word === "installation" ? ("lower_case" as const) : undefined;
      strings.push({ pointer: `/listing/marketing/${word}`, text, ...(rule ? { rule } : {}) });
    }
  }
  if (listing.portal_cta) strings.push({ pointer: "/listing/portal_cta/label", text: listing.portal_cta.label });
  return strings;
}
