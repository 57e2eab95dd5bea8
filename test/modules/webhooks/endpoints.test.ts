// Webhook endpoints: registration (the secret once, beside data, sealed at rest), reads without the
// secret, changes, re-enabling, deletion and rotation, the registering-member-or-owner rule, the URL
// guard at registration (422 naming url), event subscriptions and project allow-lists.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, joinTeamWithToken, tokenFor } from "../../helpers/fixtures.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { decrypt } from "../../../src/security/crypto.ts";
import { STRICT_WEBHOOK_NETWORK } from "../../../src/modules/webhooks/address-guard.ts";
import { activityOf, expectFieldRefusal, expectGuarded, patch, teamSnapshot } from "../resources/support.ts";
import { createEndpoint, endpointBody, PUBLIC_URL } from "./support.ts";

const BASE = "/v1/webhook-endpoints";

describe("webhook endpoints", () => {
  const suite = useApiWithCreator({ api: { webhooks: STRICT_WEBHOOK_NETWORK }, creator: { label: "webhooks", projects: 2 } });
  const snapshot = () => teamSnapshot(suite.creator.teamId, ["webhook_endpoints"]);

  it("registers an endpoint (201): the whsec_ secret once, beside data; list and get never show it; sealed at rest", async () => {
    const created = await createEndpoint(suite.client, { allowed_ips: ["93.184.215.0/24", "2606:4700::/32"] });
    assert.match(created.secret, /^whsec_[A-Za-z0-9]{40}$/);
    const { data } = created;
    assert.deepEqual(
      [
        data.name.startsWith("Endpoint"),
        data.url,
        data.events,
        data.is_active,
        data.allowed_ips,
        data.project_id,
        data.consecutive_failures,
        data.disabled_at,
      ],
      [true, PUBLIC_URL, ["subscription.created", "plan.*"], true, ["93.184.215.0/24", "2606:4700::/32"], null, 0, null],
    );
    assert.equal(data.created_by_user_id, suite.creator.userId);
    const got = await suite.client.get(`${BASE}/${data.id}`);
    assert.deepEqual(got.body, { data });
    const list = await suite.client.get(BASE);
    assert.equal(list.body.meta.per_page, 25);
    assert.deepEqual(list.body.data[0], data);
    for (const body of [got.body, list.body]) assert.ok(!JSON.stringify(body).includes(created.secret), "reads never carry the secret");

    const { db } = await testDatabase();
    const row = await db("webhook_endpoints").where({ id: data.id }).first();
    assert.ok(!JSON.stringify(row).includes(created.secret), "the secret is not stored in the clear");
    assert.equal(decrypt(TEST_APP_KEY, row.secret_sealed, `webhook_endpoints:${data.id}`), created.secret);
    assert.throws(() => decrypt(TEST_APP_KEY, row.secret_sealed, `webhook_endpoints:${randomUUID()}`), "sealed to this endpoint only");
    const [entry] = await activityOf(suite.creator.teamId, "created", data.id);
    assert.equal(entry!.subject_type, "webhook-endpoint");
    assert.ok(!JSON.stringify(entry).includes(created.secret));
  });

  it("refuses URLs that are not https on a public host with 422 naming url; nothing written", async () => {
    for (const url of [
      "http://93.184.215.14/hook",
      "https://127.0.0.1/hook",
      "https://127.1/",
      "https://2130706433/",
      "https://0x7f.1/",
      "https://[::1]/",
      "https://[::ffff:10.0.0.1]/",
      "https://10.0.0.1/",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/",
      "https://192.0.2.10/",
      "https://[fd00::1]/",
      "https://[64:ff9b::a00:1]/",
      "https://[2002:a00:1::]/",
      "https://localhost/",
      "https://user:secret@93.184.215.14/",
      "not a url",
    ]) {
      await expectFieldRefusal(() => suite.client.post(BASE, endpointBody({ url })), "url", snapshot);
    }
    const error = expectError(await suite.client.post(BASE, endpointBody({ url: "https://10.1.2.3/x" })), 422, "VALIDATION_FAILED");
    assert.deepEqual(error.fields, {
      url: [
        "the host 10.1.2.3 is a private address; webhooks go to public hosts only (the operator can exempt address ranges with WEBHOOK_ALLOWED_CIDRS, e.g. 127.0.0.0/8)",
      ],
    });
  });

  it("refuses unknown events, bad allowed_ips and empty names (422 naming the field)", async () => {
    for (const [body, field] of [
      [endpointBody({ events: ["nothing.happened"] }), "events"],
      [endpointBody({ events: [] }), "events"],
      [endpointBody({ events: ["*"] }), "events"],
      [endpointBody({ allowed_ips: ["not-an-ip"] }), "allowed_ips"],
      [endpointBody({ allowed_ips: ["10.0.0.0/33"] }), "allowed_ips"],
      [endpointBody({ name: "" }), "name"],
      [{ name: "x", events: ["plan.created"] }, "url"],
    ] as const) {
      await expectFieldRefusal(() => suite.client.post(BASE, body), field, snapshot);
    }
  });

  it("takes event names and groups; billing.* needs billing:read", async () => {
    const groups = await createEndpoint(suite.client, { events: ["team.*", "team.member.*", "coupon.created", "billing.*"] });
    assert.deepEqual(groups.data.events, ["team.*", "team.member.*", "coupon.created", "billing.*"]);
    const { token } = await tokenFor(suite.creator, ["webhook-endpoint:create", "webhook-endpoint:update"]);
    const limited = suite.client.withToken(token);
    const error = expectError(await limited.post(BASE, endpointBody({ events: ["billing.*"] })), 403, "TOKEN_MISSING_ABILITY");
    assert.equal(error.context.required_ability, "billing:read");
    assert.equal((await limited.post(BASE, endpointBody({ events: ["plan.*"] }))).status, 201);
  });

  it("changes name, events and allowed_ips; is_active false pauses; true re-enables and clears the failure count", async () => {
    const { data } = await createEndpoint(suite.client);
    const changed = await patch(suite.client, `${BASE}/${data.id}`, { name: "Renamed", events: ["coupon.*"], allowed_ips: ["93.184.215.14"] });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.data.name, changed.body.data.events, changed.body.data.allowed_ips], ["Renamed", ["coupon.*"], ["93.184.215.14"]]);
    assert.deepEqual((await patch(suite.client, `${BASE}/${data.id}`, { allowed_ips: null })).body.data.allowed_ips, null);
    assert.equal((await patch(suite.client, `${BASE}/${data.id}`, { is_active: false })).body.data.is_active, false);

    // 20 consecutive failures disabled it (as the delivery workers record it).
    const { db } = await testDatabase();
    const disabledAt = new Date("2026-11-20T10:00:00.000Z");
    await db("webhook_endpoints").where({ id: data.id }).update({ is_active: false, consecutive_failures: 20, disabled_at: disabledAt });
    assert.equal((await suite.client.get(`${BASE}/${data.id}`)).body.data.disabled_at, disabledAt.toISOString());
    const reenabled = (await patch(suite.client, `${BASE}/${data.id}`, { is_active: true })).body.data;
    assert.deepEqual([reenabled.is_active, reenabled.consecutive_failures, reenabled.disabled_at], [true, 0, null]);
    assert.equal((await activityOf(suite.creator.teamId, "re-enabled", data.id)).length, 1);
    await expectFieldRefusal(() => patch(suite.client, `${BASE}/${data.id}`, { allowed_ips: ["nope"] }), "allowed_ips", snapshot);
    await expectFieldRefusal(() => patch(suite.client, `${BASE}/${data.id}`, {}), "", snapshot);
  });

  it("rotates the secret: the new one once, the old one no longer opens; deletes (204) with its deliveries", async () => {
    const { data, secret } = await createEndpoint(suite.client);
    const rotated = await suite.client.post(`${BASE}/${data.id}/rotate-secret`);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, secret);
    assert.equal(rotated.body.data.id, data.id);
    const { db } = await testDatabase();
    const row = await db("webhook_endpoints").where({ id: data.id }).first();
    assert.equal(decrypt(TEST_APP_KEY, row.secret_sealed, `webhook_endpoints:${data.id}`), rotated.body.secret);
    assert.equal((await activityOf(suite.creator.teamId, "secret_rotated", data.id)).length, 1);

    assert.equal((await suite.client.delete(`${BASE}/${data.id}`)).status, 204);
    expectError(await suite.client.get(`${BASE}/${data.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${BASE}/${data.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(`${BASE}/${randomUUID()}/rotate-secret`), 404, "RESOURCE_NOT_FOUND");
  });

  it("only the registering member or the team owner changes, deletes, rotates or tests an endpoint (403 FORBIDDEN, nothing changed)", async () => {
    const all = [
      "webhook-endpoint:create",
      "webhook-endpoint:update",
      "webhook-endpoint:delete",
      "webhook-endpoint:view",
      "webhook-endpoint:view-any",
    ];
    const first = await createTestCreator({ label: "member-one" });
    const second = await createTestCreator({ label: "member-two" });
    const one = suite.client.withToken((await joinTeamWithToken(suite.creator, first, all)).token);
    const two = suite.client.withToken((await joinTeamWithToken(suite.creator, second, all)).token);
    const ofOne = (await createEndpoint(one)).data;
    assert.equal(ofOne.created_by_user_id, first.userId);
    assert.equal((await two.get(`${BASE}/${ofOne.id}`)).status, 200, "any holder of the ability reads it");

    const before = await snapshot();
    for (const res of [
      await patch(two, `${BASE}/${ofOne.id}`, { name: "Hijacked" }),
      await two.delete(`${BASE}/${ofOne.id}`),
      await two.post(`${BASE}/${ofOne.id}/rotate-secret`),
      await two.post(`${BASE}/${ofOne.id}/test`),
    ]) {
      const error = expectError(res, 403, "FORBIDDEN");
      assert.equal(error.context.endpoint_id, ofOne.id);
    }
    assert.deepEqual(await snapshot(), before);

    assert.equal((await patch(one, `${BASE}/${ofOne.id}`, { name: "Mine" })).status, 200, "the registering member may");
    assert.equal((await one.post(`${BASE}/${ofOne.id}/rotate-secret`)).status, 200);
    assert.equal((await patch(suite.client, `${BASE}/${ofOne.id}`, { name: "Owner's call" })).status, 200, "the team owner may");
    assert.equal((await suite.client.post(`${BASE}/${ofOne.id}/rotate-secret`)).status, 200);
    const ofOwner = (await createEndpoint(suite.client)).data;
    expectError(await one.delete(`${BASE}/${ofOwner.id}`), 403, "FORBIDDEN");
    assert.equal((await suite.client.delete(`${BASE}/${ofOne.id}`)).status, 204);
  });

  it("a token restricted to projects registers and sees only endpoints of its projects", async () => {
    const [p1, p2] = suite.creator.projectIds as [string, string];
    const restricted = suite.client.withToken(
      (await tokenFor(suite.creator, ["webhook-endpoint:create", "webhook-endpoint:view-any", "webhook-endpoint:view"], [p1])).token,
    );
    expectError(await restricted.post(BASE, endpointBody()), 404, "TENANT_MISMATCH");
    expectError(await restricted.post(BASE, endpointBody({ project_id: p2 })), 404, "TENANT_MISMATCH");
    expectError(await restricted.post(BASE, endpointBody({ project_id: randomUUID() })), 404, "RESOURCE_NOT_FOUND");
    const inside = await restricted.post(BASE, endpointBody({ project_id: p1 }));
    assert.equal(inside.status, 201);
    assert.equal(inside.body.data.project_id, p1);
    const teamWide = (await createEndpoint(suite.client)).data;
    const seen = (await restricted.get(`${BASE}?per_page=100`)).body.data.map((e: { id: string }) => e.id);
    assert.ok(seen.includes(inside.body.data.id));
    assert.ok(!seen.includes(teamWide.id));
    expectError(await restricted.get(`${BASE}/${teamWide.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("another team's endpoint is 404 on every route", async () => {
    const other = await createTestCreator({ label: "webhooks-other" });
    const theirs = (await createEndpoint(new ApiClient(suite.api.url, other.token))).data;
    expectError(await suite.client.get(`${BASE}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await patch(suite.client, `${BASE}/${theirs.id}`, { name: "x" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${BASE}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(`${BASE}/${theirs.id}/test`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${BASE}/${theirs.id}/deliveries`), 404, "RESOURCE_NOT_FOUND");
  });

  it("each route needs its ability (401 without a token, 403 naming the ability)", async () => {
    const id = (await createEndpoint(suite.client)).data.id;
    for (const route of [
      { method: "GET", path: BASE, ability: "webhook-endpoint:view-any" },
      { method: "POST", path: BASE, ability: "webhook-endpoint:create", body: endpointBody() },
      { method: "GET", path: `${BASE}/${id}`, ability: "webhook-endpoint:view" },
      { method: "PATCH", path: `${BASE}/${id}`, ability: "webhook-endpoint:update", body: { name: "x" } },
      { method: "DELETE", path: `${BASE}/${id}`, ability: "webhook-endpoint:delete" },
      { method: "POST", path: `${BASE}/${id}/rotate-secret`, ability: "webhook-endpoint:update" },
      { method: "POST", path: `${BASE}/${id}/test`, ability: "webhook-endpoint:update" },
      { method: "GET", path: `${BASE}/${id}/deliveries`, ability: "webhook-delivery:view-any" },
      { method: "POST", path: "/v1/webhook-deliveries/retry-dead", ability: "webhook-delivery:retry" },
      { method: "GET", path: "/v1/webhook-events", ability: "webhook-endpoint:view-any" },
    ]) {
      await expectGuarded(suite.client, suite.creator, route);
    }
  });
});
