// Development stand-in for the generated resource methods (generated/sdk-resources.ts, produced by
// `npm run codegen` from the operation table). sdk/scripts/build.mjs replaces it with the generated file.
export * from "../../../generated/sdk-resources.js";
