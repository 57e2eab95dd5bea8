// Hostile tools/call arguments for one tool and one family, from the tool's flat inputSchema:
// valid-looking arguments with exactly one hostile place (any argument, recursively into its
// schema, an unknown key at any object level, or the arguments object itself).
import fc from "fast-check";
import { ENVELOPE_META, rawToolHeaders } from "../helpers/mcp.ts";
import { acceptsObject, fieldName, type ToolModel } from "./spec-model.ts";
import { encodeJson, withValueAt, holdsRaw, printableBytes } from "./json-text.ts";
import { hostileJson, hostileMember, type Family, type Hostile } from "./hostile-values.ts";
import { validValue, type Anchors } from "./valid-values.ts";

export interface ToolCase {
  tool: ToolModel;
  family: Family;
  slot: string;
  label: string;
  /** The arguments, RawJson leaves included. */
  args: unknown;
}

/** Whether a JSON library can send the arguments faithfully (else the body is built by hand). */
export const sendableBySdk = (args: unknown): args is Record<string, unknown> =>
  args !== null && typeof args === "object" && !Array.isArray(args) && !holdsRaw(args);

/** The tools/call request as hand-built JSON-RPC text. */
export function rawToolCall(name: string, args: unknown, id: number): Buffer {
  return Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":`),
    encodeJson(args),
    Buffer.from(`,"_meta":${JSON.stringify(ENVELOPE_META)}}}`),
  ]);
}

export { rawToolHeaders };

export function describeToolCase(c: ToolCase): string {
  const how = sendableBySdk(c.args) ? "MCP SDK client" : "hand-built JSON-RPC body";
  return [
    `tools/call ${c.tool.name} (${how})`,
    `  arguments: ${printableBytes(encodeJson(c.args))}`,
    `  hostile ${c.family} in ${c.slot}: ${c.label}`,
  ].join("\n");
}

export function toolCases(tool: ToolModel, family: Family, anchors: Anchors): fc.Arbitrary<ToolCase> {
  const base = validValue(tool.inputSchema, "", anchors);
  const slots: fc.Arbitrary<ToolCase>[] = [];
  const add = <T>(slot: string, hostile: fc.Arbitrary<Hostile<T>> | null, apply: (args: unknown, value: T) => unknown) => {
    if (hostile) slots.push(fc.tuple(base, hostile).map(([args, h]) => ({ tool, family, slot, label: h.label, args: apply(args, h.value) })));
  };
  for (const field of tool.fields) {
    const name = field.path.length ? fieldName(field.path) : "(arguments)";
    add(name, hostileJson(family, field.schema), (args, v) => withValueAt(args, field.path, v));
    if (acceptsObject(field.schema))
      add(`${name} (added key)`, hostileMember(family), (args, m) => withValueAt(args, [...field.path, m.key], m.value));
  }
  return fc.oneof(...slots);
}
