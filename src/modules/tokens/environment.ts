// The deployment's environment (SUBBRIDGE_ENVIRONMENT): live (production) or test (a sandbox that
// runs only simulated providers). Every credential this service mints names it after its kind
// (sbt_live_…, sbo_test_…, sbr_live_…), so a credential of the other environment is told apart
// before any lookup and refused (description, tokens: "a token for another environment (prefix
// sbt_test_) is refused on production"), and the same in the other direction.
export const ENVIRONMENTS = ["live", "test"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The prefix of a credential kind on an environment: sbt (personal), sbo (OAuth access), sbr (OAuth refresh). */
export const credentialPrefix = (kind: "sbt" | "sbo" | "sbr", environment: Environment) => `${kind}_${environment}_`;

/** Whether `bearer` is one of our credentials minted on another environment. */
export function fromOtherEnvironment(bearer: string, environment: Environment): boolean {
  const match = /^sb[tor]_([a-z]+)_/.exec(bearer);
  return match !== null && match[1] !== environment;
}
