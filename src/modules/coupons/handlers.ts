import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createCoupon, deleteCoupon, getCoupon, listCoupons, updateCoupon } from "./coupons.ts";

export const handlers = {
  async list_coupons({ path, query }, ctx) {
    const { rows, total } = await listCoupons(domainContext(ctx), path.project, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_coupon({ path, body }, ctx) {
    return { data: await createCoupon(domainContext(ctx), path.project, body) };
  },
  async get_coupon({ path }, ctx) {
    return { data: await getCoupon(domainContext(ctx), path.project, path.coupon) };
  },
  async update_coupon({ path, body }, ctx) {
    return { data: await updateCoupon(domainContext(ctx), path.project, path.coupon, body) };
  },
  async delete_coupon({ path }, ctx) {
    await deleteCoupon(domainContext(ctx), path.project, path.coupon);
  },
} satisfies AreaHandlers<OperationContext, "coupons">;
