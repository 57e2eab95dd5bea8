import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { deletePaymentMethod, getPaymentMethod, listPaymentMethods, updatePaymentMethod } from "./payment-methods.ts";

export const handlers = {
  async list_payment_methods({ path, query }, ctx) {
    const { rows, total } = await listPaymentMethods(domainContext(ctx), path.project, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async get_payment_method({ path }, ctx) {
    return { data: await getPaymentMethod(domainContext(ctx), path.project, path.payment_method) };
  },
  async update_payment_method({ path, body }, ctx) {
    return { data: await updatePaymentMethod(domainContext(ctx), path.project, path.payment_method, body) };
  },
  async delete_payment_method({ path }, ctx) {
    await deletePaymentMethod(domainContext(ctx), path.project, path.payment_method);
  },
} satisfies AreaHandlers<OperationContext, "payment-methods">;
