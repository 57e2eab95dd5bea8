// The SDK's name for each operation: `sb.<resource>.<method>(...)`, as stripe-node writes
// `stripe.customers.create(...)`. Derived from the operation id (verb_noun) so a new operation gets
// a name without anyone choosing one; the few nouns that read badly as a property are renamed here.
// One function, used by the resource methods, their code samples and the docs, so they agree.
import type { OperationModel } from "./operation-model.ts";

export interface SdkName {
  /** The property of the client holding the resource: `plans`, `accessCodes`, `webhookEndpoints`. */
  resource: string;
  /** The method on it: `list`, `create`, `retrieve`, `publish`, `bulkGenerate`. */
  method: string;
}

/** A verb whose method is named otherwise: `get_plan` is `plans.retrieve`, as in stripe-node. */
const METHOD_OF_VERB: Record<string, string> = { get: "retrieve" };

/** Operation ids whose leading words are the verb (the default is the first word). */
const MULTI_WORD_VERBS = ["bulk_generate", "reply_to", "retry_dead"];

/**
 * Nouns (the operation id after its verb, singular) whose resource is not simply their plural:
 * the member lists under a project are `subscribers`, a team's own sub-resources are named with
 * their owner, the current account's lists live under `me`.
 */
const RESOURCE_OF_NOUN: Record<string, string> = {
  activity_log: "activity",
  alert_destinations: "me",
  broadcast_recipients: "broadcasts",
  // A connector's installation on a project; the catalog (list_connectors) is \`connectors\`.
  connector: "projectConnectors",
  current_team: "teams",
  deep_link: "distribution",
  identities: "me",
  identity: "me",
  member: "members",
  portal_url: "distribution",
  project_analytics: "analytics",
  project_connector: "projectConnectors",
  project_connectors: "projectConnectors",
  subscribers: "members",
  support_conversation: "supportConversations",
  support_messages: "supportConversations",
  team_analytics: "analytics",
  team_member_role: "teamMembers",
  webhook_deliveries: "webhookDeliveries",
  webhook_endpoint_secret: "webhookEndpoints",
};

/** Method names that do not follow from the verb alone (the noun says which of a resource's lists or reads). */
const METHOD_OF_OPERATION: Record<string, string> = {
  get_activity_log: "list",
  get_current_team: "retrieveCurrent",
  get_deep_link: "deepLink",
  get_portal_url: "portalUrl",
  get_project_analytics: "project",
  get_team_analytics: "team",
  list_alert_destinations: "alertDestinations",
  list_broadcast_recipients: "listRecipients",
  list_identities: "identities",
  list_subscribers: "list",
  list_support_messages: "listMessages",
  replace_alert_destinations: "replaceAlertDestinations",
  reply_to_support_conversation: "reply",
  retry_dead_webhook_deliveries: "retryDead",
  rotate_webhook_endpoint_secret: "rotateSecret",
  unlink_identity: "unlinkIdentity",
  update_team_member_role: "updateRole",
  ping: "ping",
};

/** `canned_reply` -> `cannedReply`, `access-codes` -> `accessCodes`: the SDK's names for the API's. */
export const camel = (snake: string) => snake.replace(/[_-]([a-z\d])/g, (_, c: string) => c.toUpperCase());

function plural(noun: string): string {
  if (noun.endsWith("s")) return noun;
  if (noun.endsWith("y")) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

export function sdkName(operationId: string): SdkName {
  if (operationId === "ping") return { resource: "system", method: "ping" };
  const verb = MULTI_WORD_VERBS.find((v) => operationId.startsWith(`${v}_`)) ?? operationId.split("_")[0]!;
  const noun = operationId.slice(verb.length + 1);
  const resource = RESOURCE_OF_NOUN[noun] ?? camel(plural(noun));
  const method = METHOD_OF_OPERATION[operationId] ?? camel(METHOD_OF_VERB[verb] ?? verb);
  return { resource, method };
}

/** Every operation's name; throws when two operations would share one (the table needs a rename). */
export function sdkNames(ops: readonly Pick<OperationModel, "id">[]): Map<string, SdkName> {
  const names = new Map<string, SdkName>();
  const taken = new Map<string, string>();
  for (const op of ops) {
    const name = sdkName(op.id);
    const key = `${name.resource}.${name.method}`;
    const other = taken.get(key);
    if (other) throw new Error(`sdk names: ${op.id} and ${other} are both ${key}; add one to codegen/sdk-names.ts`);
    taken.set(key, op.id);
    names.set(op.id, name);
  }
  return names;
}
