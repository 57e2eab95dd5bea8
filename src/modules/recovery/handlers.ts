import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createSetting, deleteSetting, getSetting, listSettings, updateSetting } from "./recovery-settings.ts";

export const handlers = {
  async list_recovery_settings({ path, query }, ctx) {
    const { rows, total } = await listSettings(domainContext(ctx), path.project, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_recovery_setting({ path, body }, ctx) {
    return { data: await createSetting(domainContext(ctx), ctx, path.project, body) };
  },
  async get_recovery_setting({ path }, ctx) {
    return { data: await getSetting(domainContext(ctx), path.project, path.recovery_setting) };
  },
  async update_recovery_setting({ path, body }, ctx) {
    return { data: await updateSetting(domainContext(ctx), ctx, path.project, path.recovery_setting, body) };
  },
  async delete_recovery_setting({ path }, ctx) {
    await deleteSetting(domainContext(ctx), path.project, path.recovery_setting);
  },
} satisfies AreaHandlers<OperationContext, "recovery">;
