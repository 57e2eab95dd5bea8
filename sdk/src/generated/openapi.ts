// Development stand-in for the generated OpenAPI types (generated/openapi.d.ts, produced by
// `npm run codegen`). sdk/scripts/build.mjs replaces this file with the generated one in the
// published package, so nothing generated is kept under sdk/ in git.
export type * from "../../../generated/openapi.js";
