import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createRole, deleteRole, getRole, listRoles, updateRole } from "./roles.ts";

export const handlers = {
  async list_roles({ query }, ctx) {
    const { rows, total } = await listRoles(domainContext(ctx), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_role({ body }, ctx) {
    return { data: await createRole(domainContext(ctx), { code: body.code, name: body.name, abilities: body.abilities }) };
  },
  async get_role({ path }, ctx) {
    return { data: await getRole(domainContext(ctx), path.role) };
  },
  async update_role({ path, body }, ctx) {
    return { data: await updateRole(domainContext(ctx), path.role, body) };
  },
  async delete_role({ path }, ctx) {
    await deleteRole(domainContext(ctx), path.role);
  },
} satisfies AreaHandlers<OperationContext, "roles">;
