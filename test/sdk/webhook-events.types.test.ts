// The typed webhook events, checked by the compiler: `npx tsc --noEmit -p .` typechecks this file
// (tsconfig.json includes test/), so every assignment below must compile and every line under an
// expect-error directive must fail to, or the typecheck breaks. The mocha part only runs the same code,
// so the file also shows that the narrowing matches what happens at run time.
import assert from "node:assert/strict";
import type { components } from "../../sdk/src/index.ts";
import {
  isWebhookEventType,
  signWebhookPayload,
  verifyWebhook,
  WEBHOOK_EVENT_TYPES,
  type UnknownWebhookEvent,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
} from "../../sdk/src/webhooks.ts";

type Schemas = components["schemas"];
/** true only when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

// The names: a literal union equal to the runtime list, which holds nothing else.
expectType<Equal<WebhookEventType, (typeof WEBHOOK_EVENT_TYPES)[number]>>();
expectType<Equal<WebhookEvent["type"], WebhookEventType>>();
const knownName: WebhookEventType = "subscription.created";
// @ts-expect-error not an event of the spec
const unknownName: WebhookEventType = "subscription.renamed";
// @ts-expect-error WebhookEventOf takes event names only
type NotAnEvent = WebhookEventOf<"subscription.renamed">;

// Each member: `type` is its literal name, `data` the data of the schema the spec names for it.
expectType<Equal<WebhookEventOf<"subscription.cancelled">["type"], "subscription.cancelled">>();
expectType<Equal<WebhookEventOf<"coupon.deleted">["data"], Schemas["CouponEvent"]["data"]>>();
expectType<
  Equal<WebhookEventOf<"subscription.created" | "coupon.created">, WebhookEventOf<"subscription.created"> | WebhookEventOf<"coupon.created">>
>();
// Project-scoped events carry the project's id; team-scoped ones null.
expectType<Equal<WebhookEventOf<"member.joined">["project_id"], string>>();
expectType<Equal<WebhookEventOf<"team.created">["project_id"], null>>();

/** What a receiver writes: the name narrows the data. Returns what it read, for the run-time half. */
function describeEvent(event: WebhookEvent): string {
  // @ts-expect-error data is not narrowed before the type is checked
  const before: Schemas["Subscription"] = event.data.subscription;
  void before;
  if (event.type === "subscription.created") {
    const subscription: Schemas["Subscription"] = event.data.subscription;
    const member: Schemas["MemberSummary"] | undefined = event.data.member;
    // @ts-expect-error a subscription event carries no coupon
    const coupon: Schemas["Coupon"] = event.data.coupon;
    void coupon;
    return `${event.type} ${subscription.status} ${member?.display_name}`;
  }
  switch (event.type) {
    case "coupon.created":
    case "coupon.deleted": {
      const coupon: Schemas["Coupon"] = event.data.coupon;
      // @ts-expect-error the case narrowed the name too
      const same: "coupon.updated" = event.type;
      void same;
      return `${event.type} ${coupon.code}`;
    }
    case "team.member.role_changed":
      return `${event.type} ${event.data.previous_role} ${event.data.member.user_id}`;
    default: {
      const type: string = event.type;
      return type;
    }
  }
}

// Members are plain objects a receiver's own tests can build (and the compiler checks them).
const created: WebhookEventOf<"subscription.activated"> = {
  id: "evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0E",
  type: "subscription.activated",
  created_at: "2026-11-23T09:00:00.000Z",
  api_version: "2026-11-23",
  project_id: "5d2c7a1e-8b4f-4c3a-9e6d-1f0a2b3c4d5e",
  data: {
    subscription: {
      id: "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c",
      project_id: "5d2c7a1e-8b4f-4c3a-9e6d-1f0a2b3c4d5e",
      plan_id: "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d",
      member_id: "8e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b",
      status: "active",
      source: "access_code",
      started_at: "2026-11-23T09:00:00.000Z",
      trial_ends_at: null,
      ends_at: null,
      canceled_at: null,
      expired_at: null,
      created_at: "2026-11-23T09:00:00.000Z",
      updated_at: "2026-11-23T09:00:00.000Z",
    },
  },
};
// @ts-expect-error the type and the data must belong to the same event
const mismatched: WebhookEvent = { ...created, type: "coupon.created" };
// Issue 47: a value the API adds to a response enum later (an additive change) still type-checks, and the
// known values are still offered and compared: received enums are open unions.
const paused = { ...created.data.subscription, status: "paused" as const };
const badStatus: WebhookEventOf<"subscription.activated"> = { ...created, data: { subscription: paused } };
expectType<Equal<Schemas["Subscription"]["status"], "trialing" | "active" | "past_due" | "canceled" | "expired" | (string & {})>>();

// Earlier releases' generic form still reads as the plain envelope.
expectType<Equal<WebhookEvent<{ count: number }>, WebhookEnvelope<{ count: number }>>>();
expectType<Equal<WebhookEvent<{ count: number }>["type"], string>>();
expectType<Equal<UnknownWebhookEvent, WebhookEnvelope<Record<string, unknown>>>>();

describe("sdk webhook event types", () => {
  it("verifyWebhook resolves to the union (narrowed by type), or to the envelope a type argument names", async () => {
    const secret = "whsec_types";
    const body = JSON.stringify(created);
    const headers = { "SB-Signature": await signWebhookPayload(body, secret) };
    const event = await verifyWebhook(body, headers, secret);
    expectType<Equal<typeof event, WebhookEvent>>();
    assert.equal(describeEvent(event), "subscription.activated");
    const asSubscriptionCreated = { ...created, type: "subscription.created" as const };
    assert.equal(describeEvent(asSubscriptionCreated), "subscription.created active undefined");

    // Issue 47: the annotated form a receiver writes compiles (no Data inferred from the annotation, TS2322).
    const annotated: WebhookEvent = await verifyWebhook(body, headers, secret);
    assert.equal(describeEvent(annotated), "subscription.activated");
    const annotatedEnvelope: UnknownWebhookEvent = await verifyWebhook(body, headers, secret);
    assert.equal(annotatedEnvelope.id, created.id);

    const generic = await verifyWebhook<{ subscription: { status: string } }>(body, headers, secret);
    expectType<Equal<typeof generic, WebhookEnvelope<{ subscription: { status: string } }>>>();
    assert.equal(generic.data.subscription.status, "active");
  });

  it("an event newer than the SDK still verifies; isWebhookEventType tells it apart", async () => {
    const secret = "whsec_types";
    const future: UnknownWebhookEvent = { ...created, type: "subscription.paused", data: { paused_until: "2027-01-01" } };
    const body = JSON.stringify(future);
    const event = await verifyWebhook(body, { "SB-Signature": await signWebhookPayload(body, secret) }, secret);
    assert.equal(describeEvent(event), "subscription.paused");
    assert.equal(isWebhookEventType(event.type), false);
    assert.equal(isWebhookEventType(knownName), true);
    const name: string = "coupon.created";
    if (isWebhookEventType(name)) expectType<Equal<typeof name, WebhookEventType>>();
    assert.equal(isWebhookEventType(name), true);
    assert.equal(isWebhookEventType(String(unknownName)), false);
    void mismatched;
    void badStatus;
  });
});
