// Calls an operation's handler: writes inside one transaction (the change, its activity entry and
// its events commit together or not at all), reads on the plain connection.
import type { Knex } from "knex";
import type { Handlers, Input, OperationId, OperationSpec, Output } from "../../generated/operations.ts";
import type { OperationContext } from "./context.ts";

export type AppHandlers = Handlers<OperationContext>;

export async function executeOperation<Id extends OperationId>(
  db: Knex,
  handlers: AppHandlers,
  op: OperationSpec & { id: Id },
  input: Input<Id>,
  context: Omit<OperationContext, "db" | "operation">,
): Promise<Output<Id>> {
  const handler = handlers[op.id] as (input: Input<Id>, ctx: OperationContext) => Promise<Output<Id>>;
  if (!op.write) return handler(input, { ...context, operation: op, db });
  return db.transaction((trx) => handler(input, { ...context, operation: op, db: trx }));
}
