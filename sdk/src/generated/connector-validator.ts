// Development stand-in for the compiled connector.json validator (generated/connector-validator.js,
// ajv standalone). sdk/scripts/build.mjs replaces it with a self-contained bundle of that file.
import { validateConnectorManifest as generated } from "../../../generated/connector-validator.js";
import type { CompiledValidator } from "../connector/compiled-validator.js";

export const validateConnectorManifest: CompiledValidator = generated;
