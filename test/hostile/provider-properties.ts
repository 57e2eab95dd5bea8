// Hostile input to the providers' routes (issue 43): Stripe's Connect events, the creators' tier
// billing events and an installation's Telegram updates. Anyone can send a Stripe route a header
// and a body; only Stripe can sign one, and what a creator controls in a signed event is the text
// of their own Checkout Session (client_reference_id, metadata). Telegram's updates carry what its
// users write. Every answer is below 500 without a stack trace: a refusal is the error envelope
// (400 PROVIDER_SIGNATURE_INVALID, 404, 413...), an update or event read is 200.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { billingEventsUrl } from "../../src/modules/billing/stripe-setup.ts";
import { updatesSecret } from "../../src/modules/connectors/bot/session.ts";
import { stripeEventsUrl } from "../../src/modules/payments/stripe/stripe-payments.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";
import { FAMILIES, type Family } from "./hostile-values.ts";
import { send } from "./raw-http.ts";
import {
  describeRouteCase,
  hostileBody,
  hostileHeaderValue,
  hostileSegments,
  JSON_FRAMINGS,
  STRIPE_SIGNATURES,
  type RouteCase,
} from "./route-cases.ts";
import { checkRouteAnswer, type RouteWorld } from "./route-world.ts";
import { readable, runProperty, runsFor, type RunCounts } from "./run.ts";

const JSON_TYPE = { "content-type": "application/json" };

/** A checkout.session.completed of a creator's own session, as Stripe sends it. */
function sessionEvent(reference: unknown, metadata: unknown = {}) {
  return {
    id: `evt_${randomUUID().replace(/-/g, "")}`,
    object: "event",
    type: "checkout.session.completed",
    created: Math.floor(Date.now() / 1000),
    account: "acct_hostile",
    data: {
      object: { id: "cs_hostile", object: "checkout.session", mode: "payment", payment_status: "paid", client_reference_id: reference, metadata },
    },
  };
}
const EVENT_PLACES = [
  ["id"],
  ["type"],
  ["created"],
  ["account"],
  ["data"],
  ["data", "object"],
  ["data", "object", "client_reference_id"],
  ["data", "object", "metadata"],
];

/** Text a creator can give their own Checkout Session: anything Stripe takes, up to its 200 characters. */
const CREATOR_TEXT: fc.Arbitrary<{ label: string; value: unknown }> = fc.oneof(
  fc.constantFrom(
    ...[
      "not-a-checkout",
      "",
      "00000000-0000-4000-8000-00000000000Z",
      "0F8FAD5B-D9CB-469F-A165-70867728950E",
      "1' or '1'='1",
      "../../x",
      "x".repeat(200),
      "🦉".repeat(50),
    ].map((v) => ({ label: JSON.stringify(v.slice(0, 40)), value: v })),
  ),
  fc.string({ unit: "grapheme", maxLength: 200 }).map((v) => ({ label: `free-form ${JSON.stringify(v.slice(0, 40))}`, value: v })),
);

/** Updates Telegram delivers, one of each kind the route reads, and the places of each a user (or Telegram) fills. */
function telegramUpdates(installation: { userId: number }) {
  const from = { id: installation.userId, is_bot: false, first_name: "Hostile", username: "hostile" };
  const message = (extra: Record<string, unknown>) => ({
    message_id: 7,
    date: Math.floor(Date.now() / 1000),
    chat: { id: from.id, type: "private" },
    from,
    ...extra,
  });
  const payment = { currency: "XTR", total_amount: 250, invoice_payload: randomUUID(), telegram_payment_charge_id: "stxHostile" };
  const m = (...path: string[]) => ["message", ...path];
  /** A chat_member or my_chat_member update: someone's (or the bot's own) standing in a group changed. */
  const memberChange = (kind: string, id: number, before: string, after: string, extra: Record<string, unknown> = {}) => ({
    update_id: id,
    [kind]: {
      chat: { id: -1001, type: "supergroup" },
      from,
      date: 1,
      old_chat_member: { status: before, user: from },
      new_chat_member: { status: after, user: from },
      ...extra,
    },
  });
  return [
    {
      update: { update_id: 1, message: message({ text: "hello" }) },
      places: [m("text"), m("chat", "id"), m("chat", "type"), m("from", "id"), m("from", "first_name"), m("date"), ["message"]],
    },
    { update: { update_id: 2, message: message({ text: "/start abc" }) }, places: [m("text"), m("from", "last_name"), m("from", "is_bot")] },
    { update: { update_id: 3, message: message({ text: "/cancel 1" }) }, places: [m("text")] },
    {
      update: {
        update_id: 4,
        message: message({ successful_payment: { ...payment, is_recurring: true, subscription_expiration_date: 1_900_000_000 } }),
      },
      places: [
        "currency",
        "total_amount",
        "invoice_payload",
        "telegram_payment_charge_id",
        "is_recurring",
        "is_first_recurring",
        "subscription_expiration_date",
      ].map((k) => m("successful_payment", k)),
    },
    {
      update: { update_id: 5, message: message({ refunded_payment: payment }) },
      places: [m("refunded_payment", "telegram_payment_charge_id"), m("refunded_payment", "total_amount")],
    },
    {
      update: { update_id: 6, pre_checkout_query: { id: "q1", from, currency: "XTR", total_amount: 250, invoice_payload: randomUUID() } },
      places: [
        ["pre_checkout_query", "id"],
        ["pre_checkout_query", "from", "id"],
        ["pre_checkout_query", "currency"],
        ["pre_checkout_query", "invoice_payload"],
        ["pre_checkout_query", "total_amount"],
      ],
    },
    {
      update: memberChange("chat_member", 7, "left", "member", {
        invite_link: { invite_link: "https://t.me/+abc", creator: from, creates_join_request: false, is_primary: false, is_revoked: false },
      }),
      places: [
        ["chat_member", "chat", "id"],
        ["chat_member", "new_chat_member", "status"],
        ["chat_member", "new_chat_member", "user", "id"],
        ["chat_member", "invite_link"],
        ["chat_member", "invite_link", "invite_link"],
      ],
    },
    {
      update: memberChange("my_chat_member", 8, "administrator", "left"),
      places: [
        ["my_chat_member", "chat", "id"],
        ["my_chat_member", "new_chat_member", "status"],
        ["my_chat_member", "chat", "type"],
      ],
    },
  ];
}

/** The providers' routes' properties, `counts` runs each, against the world `current()` answers once it is up. */
export function providerRouteProperties(current: () => RouteWorld, counts: RunCounts): void {
  describe("the providers' routes", () => {
    let world: RouteWorld;
    before(() => (world = current()));
    const check = async (c: RouteCase) => checkRouteAnswer(c, await send(world.api.url, c.method, c.target, c.headers, c.body), "api");
    const property = (name: string, family: string, cases: () => fc.Arbitrary<RouteCase>) =>
      it(`${family}`, async () => {
        await runProperty(
          `${name} ${family}`,
          cases().map((c) => readable({ ...c }, describeRouteCase)),
          check,
          runsFor(counts, family),
        );
      });

    for (const route of ["Connect events", "tier billing events"] as const) {
      describe(`POST ${route === "Connect events" ? "/payments/stripe/events" : "/billing/stripe/events"} (Stripe's ${route})`, () => {
        const url = () => (route === "Connect events" ? stripeEventsUrl(world.api.url) : billingEventsUrl(world.api.url));
        const secret = () => (route === "Connect events" ? world.stripe.webhookSecret : world.stripe.billing!.webhookSecret);
        const target = () => new URL(url()).pathname;
        const signed = (body: Buffer) => world.stripe.client.webhooks.generateTestHeaderString({ payload: body.toString("utf8"), secret: secret() });
        const base = (family: string, slot: string, label: string, headers: Record<string, string>, body: Buffer | null): RouteCase => ({
          route,
          family,
          slot,
          label,
          method: "POST",
          target: target(),
          headers,
          body,
        });
        const event = Buffer.from(JSON.stringify(sessionEvent(randomUUID())));
        property(route, "signature", () =>
          fc.oneof(
            hostileHeaderValue(STRIPE_SIGNATURES).map((h) =>
              base("signature", "Stripe-Signature", h.label, { ...JSON_TYPE, "stripe-signature": h.value }, event),
            ),
            fc.constant(base("signature", "Stripe-Signature", "absent", JSON_TYPE, event)),
          ),
        );
        property(route, "framing", () =>
          fc
            .constantFrom(...JSON_FRAMINGS)
            .map(([label, body]) => base("framing", "body", label, { ...JSON_TYPE, "stripe-signature": `t=1,v1=${"0".repeat(64)}` }, body)),
        );
        // Anyone's body, with a signature that cannot verify: refused before anything is read from it.
        for (const family of FAMILIES)
          property(route, family, () =>
            hostileBody(sessionEvent(randomUUID()), EVENT_PLACES, family as Family).map((h) =>
              base(family, h.slot, h.label, { ...JSON_TYPE, "stripe-signature": signed(h.body).replace(/v1=[0-9a-f]/, "v1=x") }, h.body),
            ),
          );
        // What a creator writes into their own session, which Stripe signs and delivers.
        property(route, "signed", () =>
          fc.tuple(CREATOR_TEXT, fc.constantFrom("client_reference_id", "metadata.reference")).map(([h, place]) => {
            const body = Buffer.from(
              JSON.stringify(place === "client_reference_id" ? sessionEvent(h.value) : sessionEvent(null, { reference: h.value })),
            );
            return base("signed", place, h.label, { ...JSON_TYPE, "stripe-signature": signed(body) }, body);
          }),
        );
      });
    }

    describe("POST /connectors/telegram/{installation}/updates (an installation's Telegram updates)", () => {
      const route = "Telegram updates";
      const path = (segment: string) => `/connectors/telegram/${segment}/updates`;
      const id = () => world.fixture.installation.id;
      const secretOf = (installation: string) => ({ "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, installation) });
      const base = (
        family: string,
        slot: string,
        label: string,
        segment: string,
        headers: Record<string, string>,
        body: Buffer | null,
      ): RouteCase => ({
        route,
        family,
        slot,
        label,
        method: "POST",
        target: path(segment),
        headers: { ...JSON_TYPE, ...headers },
        body,
      });
      const hello = () => Buffer.from(JSON.stringify(telegramUpdates({ userId: 4242 })[0]!.update));
      property(route, "secret", () =>
        fc.oneof(
          hostileHeaderValue(["", "x", updatesSecret(TEST_APP_KEY, randomUUID()), "a".repeat(8_000)]).map((h) =>
            base("secret", "X-Telegram-Bot-Api-Secret-Token", h.label, id(), { "x-telegram-bot-api-secret-token": h.value }, hello()),
          ),
          fc.constant(base("secret", "X-Telegram-Bot-Api-Secret-Token", "absent", id(), {}, hello())),
        ),
      );
      property(route, "path", () => hostileSegments().map((h) => base("path", "installation", h.label, h.value, secretOf(h.value), hello())));
      property(route, "framing", () =>
        fc.constantFrom(...JSON_FRAMINGS).map(([label, body]) => base("framing", "body", label, id(), secretOf(id()), body)),
      );
      for (const family of FAMILIES)
        property(route, family, () =>
          fc.oneof(
            ...telegramUpdates({ userId: 4242 }).map(({ update, places }) =>
              hostileBody(update, places, family as Family).map((h) => base(family, h.slot, h.label, id(), secretOf(id()), h.body)),
            ),
          ),
        );
    });
  });
}
