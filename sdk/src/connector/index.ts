// @subbridge/sdk/connector: the types of connector.json and a validator whose problems a
// connector author can act on (JSON pointer + plain sentence, all problems at once); the reader
// of a deep link's start payload.
import type { ConnectorManifest } from "../generated/connector-manifest.js";
import { checkManifest } from "./manifest-checks.js";
import type { ManifestProblem } from "./problems.js";

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
export { inRuleValues, parseRule, UnsupportedRuleError, type FieldValue, type RuleCheck } from "./field-rules.js";
export { commandStartPayload, readStartPayload, type StartPayload } from "./start-payload.js";

/** A connector package's manifest, connector.json (generated from spec/connector.schema.json). */
export type { ConnectorManifest };

/** The schema's stable address: put it in connector.json as "$schema" for completion in editors. */
export const CONNECTOR_SCHEMA_URL = "https://subbridge.dev/schemas/connector.schema.json";

export type ManifestValidationResult = { valid: true; manifest: ConnectorManifest } | { valid: false; errors: ManifestProblem[] };

/**
 * Checks a connector manifest against every rule of the manifest schema, then the rules the server
 * adds (field rules parse, unique resource kinds, select options agree with `in:` rules), and
 * reports all problems at once. Pass the parsed object, or the file's text as a string (a syntax
 * error is reported with its line and column).
 */
export function validateManifest(input: unknown): ManifestValidationResult {
  const { manifest, problems } = checkManifest(input);
  return manifest && !problems.length ? { valid: true, manifest } : { valid: false, errors: problems };
}
