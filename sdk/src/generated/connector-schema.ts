// Development stand-in for the connector.json schema the problem messages consult (allowed
// property names). sdk/scripts/build.mjs replaces it with the schema's structural keywords only.
import schema from "../../../spec/connector.schema.json" with { type: "json" };
import type { SchemaNode } from "../connector/schema-node.js";

export const connectorSchema: SchemaNode = schema;
