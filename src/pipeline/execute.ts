// Calls an operation's handler (after its preflight, if it has one): writes inside one transaction (the change, its activity entry, its
// events and whatever the transport records with it commit together or not at all), reads on the
// plain connection.
import type { Knex } from "knex";
import type { Handlers, Input, OperationId, OperationSpec, Output } from "../../generated/operations.ts";
import { commitEffectsOf, createDomainContext, type Actor, type CommitEffect, type DomainContext } from "../db/tenant.ts";
import type { OperationContext, Preflights } from "./context.ts";

export type AppHandlers = Handlers<OperationContext>;

/** What the context carries besides the operation and the domain view. */
export type OperationFacts = Omit<OperationContext, "domain" | "operation" | "preflight">;

/**
 * The one hook a transport has into a write: `beforeCommit` runs in the operation's own
 * transaction once the handler has answered `output`, so what it writes commits with the change or
 * not at all (REST: the response kept for its Idempotency-Key; MCP: the tool invocation entry).
 */
export interface ExecutionHooks {
  beforeCommit?: (domain: DomainContext, output: unknown) => Promise<void>;
}

export async function executeOperation<Id extends OperationId>(
  db: Knex,
  handlers: AppHandlers,
  preflights: Preflights,
  op: OperationSpec & { id: Id },
  input: Input<Id>,
  actor: Actor | null,
  facts: OperationFacts,
  /** Applies what the committed change asks for outside the database (before the answer is sent). */
  committed: (effects: readonly CommitEffect[]) => Promise<void>,
  hooks: ExecutionHooks = {},
): Promise<Output<Id>> {
  const handler = handlers[op.id] as (input: Input<Id>, ctx: OperationContext) => Promise<Output<Id>>;
  const preflight = preflights[op.id] as ((input: Input<Id>, ctx: OperationContext) => Promise<unknown>) | undefined;
  const before = preflight
    ? await preflight(input, { ...facts, operation: op, domain: actor ? createDomainContext(db, actor, facts.now) : null, preflight: null })
    : null;
  let domain: DomainContext | null = null;
  const run = async (handle: Knex | Knex.Transaction) => {
    domain = actor ? createDomainContext(handle, actor, facts.now) : null;
    const output = await handler(input, { ...facts, operation: op, domain, preflight: before });
    if (hooks.beforeCommit && domain) await hooks.beforeCommit(domain, output);
    return output;
  };
  const output = op.write ? await db.transaction(run) : await run(db);
  if (domain) await committed(commitEffectsOf(domain));
  return output;
}
