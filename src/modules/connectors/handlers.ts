import { creatorContext, domainContext, type OperationContext, type Preflights } from "../../pipeline/context.ts";
import type { AreaHandlers } from "../../../generated/operations.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { listConnectorCards } from "./catalog-page.ts";
import { getInstallation, installConnector, InstallPlan, listInstallations, prepareInstall, uninstallConnector } from "./installations.ts";
import { prepareUpdate, updateInstallation, UpdatePlan } from "./installation-changes.ts";
import { listBotChats } from "./bot-chats.ts";
import { decideRemovalHold, listRemovalHolds } from "./removal-holds.ts";

export const handlers = {
  // The catalog holds no team data: the pipeline's ability and tenancy checks are the whole gate.
  async list_connectors({ query }, ctx) {
    const { rows, total } = listConnectorCards(ctx.connectors, ctx.platforms, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async list_project_connectors({ path, query }, ctx) {
    const { rows, total } = await listInstallations(domainContext(ctx), path.project, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async install_connector({ path }, ctx) {
    return { data: await installConnector(creatorContext(ctx), ctx, path.project, path.connector, InstallPlan.of(ctx.preflight)) };
  },
  async get_project_connector({ path }, ctx) {
    return { data: await getInstallation(domainContext(ctx), ctx, path.project, path.connector) };
  },
  async list_connector_chats({ path, query }, ctx) {
    const { rows, total } = await listBotChats(domainContext(ctx), ctx, path.project, path.connector, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async list_removal_holds({ path, query }, ctx) {
    const { rows, total } = await listRemovalHolds(domainContext(ctx), ctx, path.project, path.connector, pageWindow(query), query.status);
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async confirm_removal_hold({ path }, ctx) {
    return { data: await decideRemovalHold(domainContext(ctx), ctx, path.project, path.connector, path.removal_hold, "confirm") };
  },
  async cancel_removal_hold({ path }, ctx) {
    return { data: await decideRemovalHold(domainContext(ctx), ctx, path.project, path.connector, path.removal_hold, "cancel") };
  },
  async update_project_connector({ path, body }, ctx) {
    return { data: await updateInstallation(domainContext(ctx), ctx, path.project, path.connector, body, UpdatePlan.of(ctx.preflight)) };
  },
  async uninstall_connector({ path }, ctx) {
    await uninstallConnector(domainContext(ctx), ctx, path.project, path.connector);
  },
} satisfies AreaHandlers<OperationContext, "connectors">;

/** The platform's verdict on credentials, asked before the write's transaction opens. */
export const preflights = {
  install_connector: ({ path, body }, ctx) => prepareInstall(domainContext(ctx), ctx, path.project, path.connector, body),
  update_project_connector: ({ path, body }, ctx) => prepareUpdate(domainContext(ctx), ctx, path.project, path.connector, body),
} satisfies Preflights;
