// Development stand-in for the generated webhook event map (generated/webhook-events.ts, produced by
// `npm run codegen` from the spec's webhooks section). sdk/scripts/build.mjs replaces it with the
// generated file.
export * from "../../../generated/webhook-events.js";
