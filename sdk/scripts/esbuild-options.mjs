// The one way the SDK's code is bundled, shared by the package build (the connector validator with
// its ajv helpers) and the size benchmark (what an application ships): ESM for any platform,
// ES2022, in memory, quiet.
export const NEUTRAL_ESM_BUNDLE = Object.freeze({
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  write: false,
  legalComments: "none",
  logLevel: "silent",
});
