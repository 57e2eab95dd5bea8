// Drift repair (issue 45): a gated role held without a covering grant is taken (a member the ledger
// does not know included), a granted role that went missing is given back, a role no resource
// gates is never touched, and the repairs are recorded as activity on the project. A sweep that
// would take a role from too many of its holders at once holds: none removed, a hold recorded and
// the creator alerted; a confirmed hold's members are then removed, a cancelled one's never are.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { repairDrift } from "../../../src/modules/connectors/drift.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { activityOf, codesFor, redeem, seedPlan } from "../subscriptions/commerce.ts";
import { expectError } from "../../helpers/http.ts";
import { installPath, newProject } from "./support.ts";

const snowflake = (base: bigint) => String(base + BigInt(randomInt(1, 1e9)));

describe("Discord drift repair and the mass-removal hold", function () {
  this.timeout(120_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });

  /** A new project with Discord installed and a plan granting one gated role; `members` members redeemed it (grants pending). */
  async function gated(members: number) {
    const project = await newProject(suite.creator);
    const { code: oauth, guild } = await newDiscordAuthorization();
    const install = await suite.client.post(installPath(project, "discord"), {
      oauth: { code: oauth, redirect_uri: "https://dashboard.test/discord" },
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    const creator = { ...suite.creator, projectIds: [project] };
    const plan = await seedPlan(creator, { connector: "discord", resources: [{ mode: "role", title: "Gold" }] });
    const role = snowflake(200000000000000000n);
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ platform_ref: role });
    const codes = members ? await codesFor(creator, plan, members) : [];
    const redeemed = [];
    for (const code of codes) {
      const user = snowflake(400000000000000000n);
      redeemed.push({ user, ...(await redeem(creator, project, code, { connectorKey: "discord", externalUserId: user, displayName: "M" })) });
    }
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    return { project, creator, guild, role, redeemed, env, db, fake: await testPlatform(), installation: install.body.data as { id: string } };
  }

  /** The project's Discord holds, through the API (newest first). */
  const holdsOf = async (project: string) => {
    const res = await suite.client.get(`${installPath(project, "discord")}/removal-holds`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data as { id: string; status: string; planned_count: number; platform_user_ids: string[]; applied_at: string | null }[];
  };
  const decide = (project: string, hold: string, decision: "confirm" | "cancel") =>
    suite.client.post(`${installPath(project, "discord")}/removal-holds/${hold}/${decision}`);

  const rolesOf = (fake: Awaited<ReturnType<typeof testPlatform>>, guild: string, user: string) =>
    fake.discordMembers(guild).find((m) => m.user === user)?.roles ?? [];

  it("takes a gated role held without a grant, gives back a granted role gone missing, leaves ungated roles, and records it", async () => {
    const { project, guild, role, redeemed, env, db, fake, installation } = await gated(1);
    const member = redeemed[0]!;
    await syncPlatformAccess(db, env, new Date(), { memberId: member.member.id });
    assert.deepEqual(rolesOf(fake, guild.id, member.user), [role]);
    const stranger = snowflake(600000000000000000n);
    const ungated = snowflake(700000000000000000n);
    fake.setDiscordMemberRole(guild.id, member.user, role, false); // someone took the paid role by hand
    fake.setDiscordMemberRole(guild.id, stranger, role, true); // someone gave it by hand
    fake.setDiscordMemberRole(guild.id, stranger, ungated, true); // a role SubBridge does not gate

    assert.equal(await repairDrift(db, env, new Date(), { installationId: installation.id }), 2);
    assert.deepEqual(rolesOf(fake, guild.id, member.user), [role], "given back");
    assert.deepEqual(rolesOf(fake, guild.id, stranger), [ungated], "the gated role taken, the other left");
    const entries = (await activityOf(suite.creator.teamId, project)).filter((e) => e.event === "access_drift_repaired");
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0]!.properties.removed, [{ user: stranger, role }]);
    assert.deepEqual(entries[0]!.properties.added, [{ user: member.user, role }]);
    assert.equal(await repairDrift(db, env, new Date(), { installationId: installation.id }), 0, "nothing left to repair");
  });

  /** 25 holders of the gated role: 15 members the ledger covers, 10 strangers given it by hand. */
  async function massDrift() {
    const setup = await gated(15);
    const strangers = Array.from({ length: 10 }, () => snowflake(600000000000000000n));
    for (const { user } of setup.redeemed) setup.fake.setDiscordMemberRole(setup.guild.id, user, setup.role, true);
    for (const user of strangers) setup.fake.setDiscordMemberRole(setup.guild.id, user, setup.role, true);
    const holders = () => setup.fake.discordMembers(setup.guild.id).filter((m) => m.roles.includes(setup.role)).length;
    assert.equal(holders(), 25);
    assert.equal(await repairDrift(setup.db, setup.env, new Date(), { installationId: setup.installation.id }), 0, "none removed");
    assert.equal(holders(), 25);
    const holds = await holdsOf(setup.project);
    assert.equal(holds.length, 1);
    assert.equal(holds[0]!.status, "held");
    assert.equal(holds[0]!.planned_count, 10);
    assert.deepEqual([...holds[0]!.platform_user_ids].sort(), [...strangers].sort());
    return { ...setup, strangers, holders, hold: holds[0]! };
  }

  it("holds a sweep that would take the role from 10 of its 25 holders, alerts the creator, and removes them once confirmed", async () => {
    const { db, env, project, installation, hold, holders, strangers, fake, guild } = await massDrift();
    const alerts = (await db("creator_alerts").where({ user_id: suite.creator.userId }).select("title", "body")) as { title: string; body: string }[];
    const alert = alerts.find((a) => a.body.includes(hold.id));
    assert.ok(alert, "the creator is alerted");
    assert.match(alert.title, /10 removals of Gold held/);
    assert.match(alert.body, new RegExp(`removal-holds/${hold.id}/confirm`));
    // A second sweep while the hold is open removes none and raises nothing new.
    await repairDrift(db, env, new Date(), { installationId: installation.id });
    assert.equal(holders(), 25);
    assert.equal((await holdsOf(project)).length, 1);

    // The alert's own address confirms it: its paths are the API's.
    const confirmUrl = /POST (\S+\/confirm) /.exec(alert.body)?.[1];
    assert.ok(confirmUrl, alert.body);
    assert.match(alert.body, /"Removals on hold" on the project's Connectors page/);
    const confirmed = await suite.client.post(new URL(confirmUrl).pathname);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.data.status, "confirmed");
    assert.equal(await repairDrift(db, env, new Date(), { installationId: installation.id }), 10);
    assert.equal(holders(), 15);
    for (const user of strangers) assert.deepEqual(fake.discordMembers(guild.id).find((m) => m.user === user)?.roles, []);
    assert.ok((await holdsOf(project))[0]!.applied_at, "the confirmed hold is marked applied");
    const twice = expectError(await decide(project, hold.id, "cancel"), 422, "VALIDATION_FAILED");
    assert.equal(twice.context.reason, "removal_hold_decided");
  });

  it("a cancelled hold removes none, and the same members are not held or alerted again", async () => {
    const { db, env, project, installation, hold, holders } = await massDrift();
    assert.equal((await decide(project, hold.id, "cancel")).status, 200);
    await repairDrift(db, env, new Date(), { installationId: installation.id });
    assert.equal(holders(), 25, "none removed");
    const holds = await holdsOf(project);
    assert.deepEqual(
      holds.map((h) => h.status),
      ["cancelled"],
    );
  });
});
