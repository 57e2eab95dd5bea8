// The one pipeline every transport runs an operation through:
//   admit      authenticate the bearer, count the request against the credential's budget
//   prepare    tenancy and ability (authorizeOperation), the body read only then, the generated
//              validators (validateInput)
//   execute    the handler, in one transaction for writes, with whatever the transport records
// REST calls all three per request (idempotency wraps execute); MCP admits once per HTTP request
// and prepares and executes per tool call. Transports only translate: headers, bodies, results.
import { providerRegistry } from "../modules/payments/providers.ts";
import type { StripePayments } from "../modules/payments/stripe/stripe-payments.ts";
import type { Environment } from "../modules/tokens/environment.ts";
import type { Knex } from "knex";
import type { Input, OperationId, OperationSpec, Output } from "../../generated/operations.ts";
import type { FieldErrors } from "../errors.ts";
import type { Kv } from "../kv/kv.ts";
import type { Logger } from "pino";
import type { Actor, ActorKind, CommitEffect } from "../db/tenant.ts";
import { runPlatformTasks } from "../modules/connectors/platform-tasks.ts";
import { syncPlatformAccess } from "../modules/connectors/access-sync.ts";
import type { ConnectorRegistry } from "../modules/connectors/registry.ts";
import type { PlatformEndpoints } from "../config.ts";
import { admitBearer, type Admission } from "./authenticate.ts";
import { authorizeOperation } from "./authorize.ts";
import type { OperationContext, Preflights, Principal } from "./context.ts";
import { executeOperation, type AppHandlers, type ExecutionHooks } from "./execute.ts";
import type { Window } from "./rate-limit.ts";
import { validateInput } from "./validate.ts";
import { applyCredentialEffects } from "./credential-cache.ts";
import { STRICT_WEBHOOK_NETWORK, type WebhookNetwork } from "../modules/webhooks/address-guard.ts";

export interface PipelineDeps {
  /** Public base URL of the REST API (absolute links; the address platforms deliver updates to). */
  baseUrl: string;
  db: Knex;
  kv: Kv;
  handlers: AppHandlers;
  /** The operations' preflights (src/modules/handlers.ts): their work before the transaction. */
  preflights: Preflights;
  now: () => Date;
  release: string;
  /** Public address of the authorization server (links people open: invitations, sign-in). */
  authUrl: string;
  /** The connector packages loaded at start. */
  connectors: ConnectorRegistry;
  /** Where the connector drivers reach their platforms. */
  platforms: PlatformEndpoints;
  /** APP_KEY (connector credentials are sealed with it). */
  appKey: Buffer;
  /** Public address of the subscriber portal. */
  portalUrl: string;
  /** Public address of the creator dashboard (links a creator opens, e.g. a project's payments page); absent: the auth host's pages. */
  dashboardUrl?: string;
  /** Where webhooks may be sent; default: https to public addresses only (STRICT_WEBHOOK_NETWORK). */
  webhooks?: WebhookNetwork;
  /** Where work done after COMMIT reports a failure (the platform tasks' retries are recorded anyway). */
  logger?: Logger;
  /** The platform's Stripe (read at each call); absent or null = no payments by Stripe here. */
  stripe?: StripePayments | null;
  /** SUBBRIDGE_ENVIRONMENT: which credentials are this deployment's (sbt_live_ or sbt_test_); absent = live. */
  environment?: Environment;
}

/**
 * What a committed change asks for outside the database, done before the answer is sent: the
 * credential cache forgets changed tokens, the platform tasks the change queued run, and so does the
 * access sync of the members it made due (sync_member_access). A platform
 * task that fails stays queued for the connectors.platform-tasks job: the change has committed, so
 * the answer is still its success.
 */
async function applyCommitEffects(deps: PipelineDeps, effects: readonly CommitEffect[], now: Date): Promise<void> {
  await applyCredentialEffects(deps.kv, effects);
  const taskIds = effects.flatMap((effect) => (effect.kind === "platform-tasks" ? effect.taskIds : []));
  if (taskIds.length)
    await runPlatformTasks(deps.db, deps, now, { taskIds }, deps.logger).catch((err: unknown) =>
      deps.logger?.warn({ err, task_ids: taskIds }, "platform tasks not run after commit; the job runs them"),
    );
  for (const memberId of effects.flatMap((effect) => (effect.kind === "access-sync" ? effect.memberIds : [])))
    await syncPlatformAccess(deps.db, deps, now, { memberId }, deps.logger).catch((err: unknown) =>
      deps.logger?.warn({ err, member_id: memberId }, "member's access not synced after commit; the connectors.sync-access job does it"),
    );
}

export type { Admission } from "./authenticate.ts";

/**
 * The credential behind `authorization`, with one request counted against `budget` under
 * `<budgetName>:<credential>`; see admitBearer.
 */
export function admit(
  deps: Pick<PipelineDeps, "db" | "kv" | "environment">,
  authorization: string | undefined,
  budget: readonly Window[],
  budgetName: string,
  now: Date,
): Promise<Admission> {
  return admitBearer(deps.db, deps.kv, authorization, budget, budgetName, now, deps.environment ?? "live");
}

export interface OperationCall {
  op: OperationSpec;
  /** Null on public operations. */
  principal: Principal | null;
  path: Record<string, string>;
  query: Record<string, unknown>;
  /** The body, asked for once authorization has passed (REST reads the socket only then). */
  body: () => unknown;
  /** What the transport found wrong before validation (reported with the validators' findings). */
  problems?: FieldErrors;
  /** Arguments only an MCP tool takes (a keyset list's cursor); absent over REST. */
  toolArguments?: Readonly<Record<string, string>>;
  actorKind: ActorKind;
  requestId: string;
  /**
   * The REST address the call stands for (list links), whichever transport carried it; asked for
   * only once the input is valid (it is built from the input).
   */
  resourceUrl: () => URL;
  now: Date;
}

export interface PreparedOperation<Id extends OperationId = OperationId> {
  input: Input<Id>;
  actor: Actor | null;
  /** Runs the preflight and the handler; `hooks.beforeCommit` joins the operation's transaction. */
  execute(hooks?: ExecutionHooks): Promise<Output<Id>>;
}

export function actorOf(principal: Principal & { teamId: string }, kind: ActorKind, requestId: string): Actor {
  return {
    userId: principal.userId,
    teamId: principal.teamId,
    projectIds: principal.projectIds,
    kind,
    credentialKind: principal.credentialKind,
    requestId,
  };
}

/** Authorizes and validates a call; nothing has run or changed when this throws. */
export async function prepareOperation(deps: PipelineDeps, call: OperationCall): Promise<PreparedOperation> {
  const { op, principal } = call;
  let actor: Actor | null = null;
  if (!op.public) {
    if (!principal) throw new Error(`prepareOperation: ${op.id} needs an admitted principal`);
    authorizeOperation(op, principal, call.path);
    actor = actorOf(principal, call.actorKind, call.requestId);
  }
  const body = await call.body();
  const input = validateInput(op, { path: call.path, query: call.query, body }, call.problems);
  const prepared: OperationContext = {
    operation: op,
    domain: null,
    preflight: null,
    now: call.now,
    requestId: call.requestId,
    principal,
    resourceUrl: call.resourceUrl(),
    release: deps.release,
    connectors: deps.connectors,
    authUrl: deps.authUrl,
    platforms: deps.platforms,
    appKey: deps.appKey,
    portalUrl: deps.portalUrl,
    baseUrl: deps.baseUrl,
    dashboardUrl: deps.dashboardUrl ?? null,
    toolArguments: call.toolArguments ?? null,
    payments: () =>
      providerRegistry({ db: deps.db, stripe: deps.stripe?.client ?? null, connectors: { platforms: deps.platforms, appKey: deps.appKey } }),
    webhooks: deps.webhooks ?? STRICT_WEBHOOK_NETWORK,
    environment: deps.environment ?? "live",
  };
  return {
    input,
    actor,
    execute: (hooks) =>
      executeOperation(
        deps.db,
        deps.handlers,
        deps.preflights,
        op,
        input,
        actor,
        prepared,
        (effects) => applyCommitEffects(deps, effects, call.now),
        hooks,
      ),
  };
}
