// The connector sweep on Discord: a redemption's role and private-channel grants are fulfilled on
// the platform (the role given, a member permission overwrite on the channel) and marked granted;
// a ban revokes them there (role taken, overwrite deleted) and bans the member from the server. A
// subscription that ends while a newer one of the member gives the same places takes nothing away.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { banMember } from "../../../src/modules/members/ban.ts";
import { cancelSubscription, expireSubscription } from "../../../src/modules/subscriptions/subscriptions.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { asDomain, codesFor, redeem, seedPlan } from "../subscriptions/commerce.ts";
import { installPath } from "./support.ts";

describe("the connector sweep on Discord", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });

  it("gives the role and the channel, marks the grants granted, and takes both away on a ban [claim discord.resource_kinds.role discord.resource_kinds.channel discord.overview.private-channels-open-to-members-of]", async () => {
    const project = suite.creator.projectIds[0]!;
    const { code: oauth, guild } = await newDiscordAuthorization();
    const install = await suite.client.post(installPath(project, "discord"), {
      oauth: { code: oauth, redirect_uri: "https://dashboard.test/discord" },
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    const plan = await seedPlan(suite.creator, { resources: [{ mode: "role" }, { mode: "membership" }] });
    const [role, channel] = ["200000000000000001", "300000000000000001"];
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ connector_key: "discord", kind: "role", platform_ref: role });
    await db("resources").where({ id: plan.resourceIds[1] }).update({ connector_key: "discord", kind: "channel", platform_ref: channel });
    const [code] = await codesFor(suite.creator, plan);
    const user = String(400000000000000000n + BigInt(randomInt(1, 1e9)));
    const redemption = await redeem(suite.creator, project, code!, { connectorKey: "discord", externalUserId: user, displayName: "Dee" });
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    const fake = await testPlatform();

    let mark = fake.calls.length;
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id }), 2);
    const routes = (from: number) => fake.calls.slice(from).map((c) => `${c.method} ${c.name}`);
    assert.deepEqual(
      routes(mark).sort(),
      [`PUT /channels/${channel}/permissions/${user}`, `PUT /guilds/${guild.id}/members/${user}/roles/${role}`].sort(),
    );
    const grants = await db("access_grants").where({ member_id: redemption.member.id });
    assert.deepEqual(
      grants.map((g: { status: string }) => g.status),
      ["granted", "granted"],
    );
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id }), 0, "a second sweep has nothing to do");

    await asDomain(suite.creator, (ctx) => banMember(ctx, project, redemption.member.id, { reason: "test" }));
    mark = fake.calls.length;
    assert.ok((await syncPlatformAccess(db, env, new Date(), { memberId: redemption.member.id })) >= 3);
    assert.deepEqual(
      routes(mark).sort(),
      [
        `DELETE /channels/${channel}/permissions/${user}`,
        `DELETE /guilds/${guild.id}/members/${user}/roles/${role}`,
        `PUT /guilds/${guild.id}/bans/${user}`,
      ].sort(),
    );
  });

  it("an ended subscription takes nothing away that the member's newer subscription still gives (a cancelled trial, then a paid plan)", async () => {
    const project = suite.creator.projectIds[0]!;
    const plan = await seedPlan(suite.creator, { resources: [{ mode: "role" }, { mode: "membership" }] });
    const [role, channel] = ["200000000000000002", "300000000000000002"];
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ connector_key: "discord", kind: "role", platform_ref: role });
    await db("resources").where({ id: plan.resourceIds[1] }).update({ connector_key: "discord", kind: "channel", platform_ref: channel });
    const [first, second] = await codesFor(suite.creator, plan, 2);
    const user = String(400000000000000000n + BigInt(randomInt(1, 1e9)));
    const member = { connectorKey: "discord", externalUserId: user, displayName: "Ola" };
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    const fake = await testPlatform();
    const routes = (from: number) => fake.calls.slice(from).map((c) => `${c.method} ${c.name}`);

    const older = await redeem(suite.creator, project, first!, member);
    await syncPlatformAccess(db, env, new Date(), { memberId: older.member.id });
    // Cancelled, its access runs to its end; a newer subscription gives the same places meanwhile.
    await asDomain(suite.creator, (ctx) => cancelSubscription(ctx, older.subscription.id));
    const newer = await redeem(suite.creator, project, second!, member);
    await syncPlatformAccess(db, env, new Date(), { memberId: older.member.id });

    let mark = fake.calls.length;
    await asDomain(suite.creator, (ctx) => expireSubscription(ctx, older.subscription.id), { system: true });
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: older.member.id }), 2, "both revoked grants brought in line");
    assert.deepEqual(routes(mark), [], "nothing taken away: the newer subscription gives both places");
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: older.member.id }), 0);

    mark = fake.calls.length;
    await asDomain(suite.creator, (ctx) => expireSubscription(ctx, newer.subscription.id), { system: true });
    await syncPlatformAccess(db, env, new Date(), { memberId: older.member.id });
    const taken = routes(mark);
    assert.equal(taken.length, 2, taken.join(", "));
    assert.ok(taken.includes(`DELETE /channels/${channel}/permissions/${user}`));
    assert.ok(
      taken.some((r) => r.startsWith("DELETE /guilds/") && r.endsWith(`/members/${user}/roles/${role}`)),
      "the last one to end takes them away",
    );
  });
});
