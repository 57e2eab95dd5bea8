// Development stand-in for the generated connector.json types (generated/connector-manifest.d.ts,
// json-schema-to-typescript). sdk/scripts/build.mjs replaces it with the generated file.
export type * from "../../../generated/connector-manifest.js";
