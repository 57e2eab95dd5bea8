import type { AreaHandlers } from "../../../generated/operations.ts";
import { creatorContext, domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { listDeliveries, replayDelivery, retryDeadDeliveries } from "./deliveries.ts";
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateSecret, updateEndpoint, type WebhookEnvironment } from "./endpoints.ts";
import { samplesFor } from "./samples.ts";
import { testEndpoint } from "./test-call.ts";

function environment(ctx: OperationContext): WebhookEnvironment & { release: string } {
  return { appKey: ctx.appKey, network: ctx.webhooks, abilities: ctx.principal?.abilities ?? new Set(), release: ctx.release };
}

export const handlers = {
  async list_webhook_endpoints({ query }, ctx) {
    const { rows, total } = await listEndpoints(domainContext(ctx), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_webhook_endpoint({ body }, ctx) {
    return createEndpoint(creatorContext(ctx), environment(ctx), body);
  },
  async get_webhook_endpoint({ path }, ctx) {
    return { data: await getEndpoint(domainContext(ctx), path.webhook_endpoint) };
  },
  async update_webhook_endpoint({ path, body }, ctx) {
    return { data: await updateEndpoint(domainContext(ctx), environment(ctx), path.webhook_endpoint, body) };
  },
  async delete_webhook_endpoint({ path }, ctx) {
    await deleteEndpoint(domainContext(ctx), path.webhook_endpoint);
  },
  async rotate_webhook_endpoint_secret({ path }, ctx) {
    return rotateSecret(domainContext(ctx), environment(ctx), path.webhook_endpoint);
  },
  async test_webhook_endpoint({ path }, ctx) {
    return { data: await testEndpoint(domainContext(ctx), environment(ctx), path.webhook_endpoint) };
  },
  async list_webhook_deliveries({ path, query }, ctx) {
    const { rows, total } = await listDeliveries(domainContext(ctx), path.webhook_endpoint, query.status, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async retry_dead_webhook_deliveries({ body }, ctx) {
    return { data: { requeued: await retryDeadDeliveries(domainContext(ctx), body?.endpoint_id) } };
  },
  async replay_webhook_delivery({ path }, ctx) {
    return { data: await replayDelivery(domainContext(ctx), path.webhook_delivery) };
  },
  // Samples hold no team data: the pipeline's ability check is the whole gate.
  async list_webhook_events({ query }, ctx) {
    const all = [...samplesFor(query.type)];
    if (query.sort_direction === "desc") all.reverse();
    const { offset, limit } = pageWindow(query);
    return listEnvelope(all.slice(offset, offset + limit), all.length, query, ctx.resourceUrl);
  },
} satisfies AreaHandlers<OperationContext, "webhooks">;
