// @subbridge/sdk/connector: the types of connector.json and a validator whose problems a
// connector author can act on (JSON pointer + plain sentence, all problems at once); the reader
// of a deep link's start payload.
import { validateConnectorManifest } from "../generated/connector-validator.js";
import { connectorSchema } from "../generated/connector-schema.js";
import type { ConnectorManifest } from "../generated/connector-manifest.js";
import { parseJsonText } from "./json-text.js";
import { manifestProblems, type ManifestProblem } from "./problems.js";

export type {
  Capability,
  Field,
  Install,
  Link,
  Listing,
  ListingLinks,
  ManagementCommand,
  MarketingWords,
  MessagingLimits,
  Pacing,
  PortalCallToAction,
  RecoverySupport,
  ResourceKind,
} from "../generated/connector-manifest.js";
export type { ManifestProblem } from "./problems.js";
export { commandStartPayload, readStartPayload, type StartPayload } from "./start-payload.js";

/** A connector package's manifest, connector.json (generated from spec/connector.schema.json). */
export type { ConnectorManifest };

/** The schema's stable address: put it in connector.json as "$schema" for completion in editors. */
export const CONNECTOR_SCHEMA_URL = "https://subbridge.dev/schemas/connector.schema.json";

export type ManifestValidationResult = { valid: true; manifest: ConnectorManifest } | { valid: false; errors: ManifestProblem[] };

/**
 * Checks a connector manifest against every rule of the manifest schema and reports all problems
 * at once. Pass the parsed object, or the file's text as a string (a syntax error is reported
 * with its line and column).
 */
export function validateManifest(input: unknown): ManifestValidationResult {
  let manifest = input;
  if (typeof input === "string") {
    const parsed = parseJsonText(input);
    if (!parsed.ok) return { valid: false, errors: [parsed.problem] };
    manifest = parsed.value;
  }
  if (validateConnectorManifest(manifest)) return { valid: true, manifest: manifest as ConnectorManifest };
  return { valid: false, errors: manifestProblems(validateConnectorManifest.errors ?? [], manifest, connectorSchema) };
}
