// Sample requests for any operation of the table, so table-driven tests cover every operation
// (including those added later) without per-operation code.
import { operationList, type OperationSpec } from "../../generated/operations.ts";

export const authenticatedOperations: OperationSpec[] = operationList.filter((op) => !op.public);

/** Fills the operation's path template; unknown parameter names get a fresh UUID. */
export function samplePath(op: OperationSpec, values: Record<string, string> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? (name === "id" ? "1" : crypto.randomUUID())));
}
