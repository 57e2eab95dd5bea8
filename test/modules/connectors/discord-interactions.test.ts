// The Discord application's interactions endpoint (issue 45): only requests signed with the
// application's Ed25519 key are read (401 otherwise, bearer token or not, and for a stale
// timestamp), a PING answers PONG, and the slash commands registered on a server at install answer
// its members ephemerally: /subscribe, /status, /cancel (deferred, its answer PATCHed afterwards),
// /redeem, /support, and /reply for the team only.
import assert from "node:assert/strict";
import { generateKeyPairSync, randomInt, randomUUID, sign } from "node:crypto";
import { DISCORD_COMMANDS } from "../../../src/modules/connectors/bot/discord-commands.ts";
import { COMMAND_ANSWERS, TEAM_ONLY } from "../../../src/apps/api/discord-command-answers.ts";
import { IN_SERVER_ONLY, NOT_CONNECTED, UNKNOWN_COMMAND, UNSTORABLE } from "../../../src/apps/api/discord-interactions.ts";
import type { SimulatedInteraction } from "../../../src/simulators/platforms/fake-discord-interactions.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { newDiscordAuthorization, PORTAL_URL, testPlatform } from "../../helpers/platforms.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { codesFor, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { installPath } from "./support.ts";

interface Answer {
  type: number;
  data?: { content?: string; flags?: number };
}

/** `check` until it answers something truthy (work the endpoint does after answering), or fails after `ms`. */
async function eventually<T>(check: () => Promise<T | null | undefined> | T | null | undefined, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the Discord interactions endpoint", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let endpoint: string;
  let guild: { id: string; name: string };
  let project: string;
  let plan: SeededPlan;
  const ROLE = "500000000000000001";

  before(async () => {
    endpoint = `${suite.api.url}/connectors/discord/interactions`;
    project = suite.creator.projectIds[0]!;
    const authorization = await newDiscordAuthorization();
    guild = authorization.guild;
    const install = await suite.client.post(installPath(project, "discord"), {
      oauth: { code: authorization.code, redirect_uri: "https://dashboard.test/discord" },
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    plan = await seedPlan(suite.creator, { resources: [{ mode: "role", title: "Supporter role" }] });
    const { db } = await testDatabase();
    await db("resources")
      .where({ id: plan.resourceIds[0] })
      .update({ connector_key: "discord", kind: "role", platform_ref: ROLE, installation_id: install.body.data.id });
  });

  const newUser = (name = "Dee") => ({
    id: String(400000000000000000n + BigInt(randomInt(1, 1e9))),
    username: name.toLowerCase(),
    global_name: name,
  });

  /** A member's command in the installed server, signed by the simulated Discord. */
  async function command(name: string, user: { id: string; username: string }, options: SimulatedInteraction["options"] = {}) {
    const sent = await (await testPlatform()).sendDiscordInteraction(endpoint, { command: name, options, guild_id: guild.id, user });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    return { ...sent, answer: sent.body as Answer };
  }

  /** An immediate ephemeral answer's text. */
  async function say(name: string, user: { id: string; username: string }, options: SimulatedInteraction["options"] = {}): Promise<string> {
    const { answer } = await command(name, user, options);
    assert.equal(answer.type, 4, JSON.stringify(answer));
    assert.equal(answer.data?.flags, 64, "ephemeral");
    return answer.data!.content!;
  }

  /** A deferred answer's follow-up, once the endpoint has PATCHed it to the simulated Discord. */
  async function deferred(name: string, user: { id: string; username: string }, options: SimulatedInteraction["options"] = {}) {
    const fake = await testPlatform();
    const { answer, token } = await command(name, user, options);
    assert.deepEqual(answer, { type: 5, data: { flags: 64 } });
    return eventually(() => fake.discordInteractionAnswer(token), `the follow-up of /${name}`);
  }

  describe("verification", () => {
    const body = JSON.stringify({ type: 1, id: "1", application_id: "100000000000000001", token: "t", version: 1 });
    const now = () => String(Math.floor(Date.now() / 1000));
    const post = (headers: Record<string, string>, payload = body) =>
      fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: payload });

    async function expect401(res: Response) {
      assert.equal(res.status, 401);
      const answer = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(answer.error.code, "AUTHENTICATION_REQUIRED");
      assert.match(answer.error.message, /not signed by this deployment's Discord application/);
      assert.equal(res.headers.get("www-authenticate"), null, "no bearer challenge: a token is no way in here");
    }

    for (const bearer of [false, true]) {
      it(`answers 401 to a missing, malformed or wrong signature${bearer ? ", with a valid API bearer token too" : ""}`, async () => {
        const auth: Record<string, string> = bearer ? { authorization: `Bearer ${suite.creator.token}` } : {};
        await expect401(await post(auth));
        await expect401(await post({ ...auth, "x-signature-timestamp": now() }));
        await expect401(await post({ ...auth, "x-signature-ed25519": "zz".repeat(64), "x-signature-timestamp": now() }));
        await expect401(await post({ ...auth, "x-signature-ed25519": "ab".repeat(32), "x-signature-timestamp": now() }));
        // Well formed, but signed with another key.
        const other = generateKeyPairSync("ed25519").privateKey;
        const timestamp = now();
        const signature = sign(null, Buffer.from(timestamp + body), other).toString("hex");
        await expect401(await post({ ...auth, "x-signature-ed25519": signature, "x-signature-timestamp": timestamp }));
      });
    }

    it("answers 401 to a signed request whose body or timestamp was changed after signing", async () => {
      const headers = (await testPlatform()).signDiscordInteraction(body);
      assert.deepEqual(await (await post(headers, body)).json(), { type: 1 }, "unaltered, it is read");
      await expect401(await post(headers, body.replace('"type":1', '"type":2')));
      await expect401(await post({ ...headers, "x-signature-timestamp": String(Number(headers["x-signature-timestamp"]) + 1) }, body));
    });

    it("answers 401 to a correctly signed request with a stale timestamp", async () => {
      const stale = await (await testPlatform()).sendDiscordInteraction(endpoint, { type: 1 }, { timestamp: Math.floor(Date.now() / 1000) - 600 });
      assert.equal(stale.status, 401);
      assert.equal((stale.body as { error: { code: string } }).error.code, "AUTHENTICATION_REQUIRED");
    });

    it("answers PONG to a signed PING, sent by the simulator's function or its JSON route", async () => {
      const fake = await testPlatform();
      const pong = await fake.sendDiscordInteraction(endpoint, { type: 1 });
      assert.equal(pong.status, 200);
      assert.deepEqual(pong.body, { type: 1 });
      const res = await fetch(`${fake.url}/_sim/discord/interactions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: endpoint, type: 1 }),
      });
      const sent = (await res.json()) as { status: number; body: unknown; token: string };
      assert.deepEqual([sent.status, sent.body], [200, { type: 1 }]);
    });

    it("reads no more than an interaction can be (64 KB)", async () => {
      const res = await post(
        { "x-signature-ed25519": "ab".repeat(64), "x-signature-timestamp": now() },
        JSON.stringify({ type: 1, pad: "x".repeat(70_000) }),
      );
      assert.equal(res.status, 422);
      assert.deepEqual(((await res.json()) as { error: { fields: unknown } }).error.fields, { body: ["must be at most 65536 bytes"] });
    });
  });

  it("registered the slash commands on the server at install, from the one list the endpoint answers", async () => {
    const fake = await testPlatform();
    const registered = fake.discordCommands(guild.id) as { name: string; options: unknown[] }[];
    assert.deepEqual(
      registered.map((c) => c.name),
      DISCORD_COMMANDS.map((c) => c.name),
    );
    assert.deepEqual(registered.find((c) => c.name === "redeem")?.options, DISCORD_COMMANDS.find((c) => c.name === "redeem")?.options);
    const put = fake.calls.find(
      (c) => c.method === "PUT" && c.name === `/applications/${fake.discordApplication.clientId}/guilds/${guild.id}/commands`,
    );
    assert.ok(put, "PUT /applications/{app}/guilds/{guild}/commands");
    assert.deepEqual(Object.keys(COMMAND_ANSWERS).sort(), DISCORD_COMMANDS.map((c) => c.name).sort(), "every command has its answer");
  });

  it("answers an unknown command, a DM and a server without an installation with short ephemeral texts", async () => {
    const fake = await testPlatform();
    const user = newUser();
    assert.equal(await say("dance", user), UNKNOWN_COMMAND);
    const dm = await fake.sendDiscordInteraction(endpoint, { command: "status", guild_id: null, user });
    assert.equal((dm.body as Answer).data?.content, IN_SERVER_ONLY);
    const elsewhere = await fake.sendDiscordInteraction(endpoint, { command: "status", guild_id: "999999999999999999", user });
    assert.equal((elsewhere.body as Answer).data?.content, NOT_CONNECTED);
  });

  it("answers a command holding text no column can store (a NUL, an unpaired surrogate) without storing anything", async () => {
    const fake = await testPlatform();
    const { db } = await testDatabase();
    for (const [options, user] of [
      [{ message: "help\u0000me" }, newUser()],
      [{ message: "half \ud800 a pair" }, newUser()],
      [{ message: "fine" }, { ...newUser(), global_name: "Nul\u0000Name" }],
    ] as const) {
      const sent = await fake.sendDiscordInteraction(endpoint, { command: "support", options, guild_id: guild.id, user });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      assert.equal((sent.body as Answer).data?.content, UNSTORABLE);
      assert.equal(await db("members").where({ connector_key: "discord", external_user_id: user.id }).first(), undefined);
    }
  });

  it("/subscribe lists the published plans with their prices and the project's portal link [claim discord.settings.support_email]", async () => {
    const { db } = await testDatabase();
    const { name } = await db("plans").where({ id: plan.planId }).first("name");
    const { handle } = await db("projects").where({ id: project }).first("handle");
    const text = await say("subscribe", newUser());
    assert.ok(text.includes(`• ${name}: $5.00 every month`), text);
    assert.ok(text.endsWith(`Join on ${PORTAL_URL}/${handle}`), text);
    // The installation's support contact (its support_email setting) closes the answer once set.
    const set = await suite.client.request("PATCH", installPath(project, "discord"), {
      body: { settings: { support_email: "help@nightowls.test" } },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.ok((await say("subscribe", newUser())).endsWith(`Join on ${PORTAL_URL}/${handle}\nSupport: help@nightowls.test`));
    assert.equal((await suite.client.request("PATCH", installPath(project, "discord"), { body: { settings: { support_email: null } } })).status, 200);
  });

  it("/status answers 'no membership' with the portal link, and records the member by their Discord account", async () => {
    const user = newUser("Noor");
    assert.match(await say("status", user), /^You have no membership here\. Join on http:\/\/portal\.test\/\S+$/);
    const { db } = await testDatabase();
    const member = await db("members").where({ project_id: project, connector_key: "discord", external_user_id: user.id }).first();
    assert.equal(member?.display_name, "Noor", "the global name");
  });

  it("/redeem grants the plan (the role given after the answer), /status shows it, /cancel cancels it at period end through a deferred follow-up", async () => {
    const fake = await testPlatform();
    const user = newUser("Ruth");
    const [code] = await codesFor(suite.creator, plan);
    const redeemed = await say("redeem", user, { code: code! });
    assert.match(redeemed, /^Your access code worked: welcome!\n• Supporter role: yours in a moment\.$/);
    const rolePath = `/guilds/${guild.id}/members/${user.id}/roles/${ROLE}`;
    await eventually(() => fake.calls.find((c) => c.method === "PUT" && c.name === rolePath), "the role given");
    const { db } = await testDatabase();
    const member = await db("members").where({ project_id: project, connector_key: "discord", external_user_id: user.id }).first();
    const grant = await eventually(
      async () => (await db("access_grants").where({ member_id: member.id, status: "granted" }).first()) as { id: string } | undefined,
      "the grant marked granted",
    );
    assert.ok(grant);
    assert.equal(await say("redeem", newUser(), { code: code! }), "This access code has already been used.");
    assert.equal(await say("redeem", newUser(), { code: "not-a-code" }), "No access code of this community matches (codes are case-sensitive).");

    const sub = await db("subscriptions").where({ member_id: member.id }).first();
    const until = new Date(sub.ends_at).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
    const name = (await db("plans").where({ id: plan.planId }).first("name")).name as string;
    assert.equal(await say("status", user), `Your membership:\n• ${name}: until ${until} (does not renew)\nYour access:\n• Supporter role`);

    const listed = await deferred("cancel", user);
    assert.match(listed, /^If you cancel:\n1\. /);
    assert.equal((await db("subscriptions").where({ id: sub.id }).first()).status, "active", "listing changes nothing");
    const mark = fake.calls.length;
    const done = await deferred("cancel", user, { number: 1 });
    assert.ok(done.startsWith(`${name} is cancelled.`), done);
    const patch = fake.calls.slice(mark).find((c) => c.method === "PATCH");
    assert.match(String(patch?.name), new RegExp(`^/webhooks/${fake.discordApplication.clientId}/[^/]+/messages/@original$`));
    const after = await db("subscriptions").where({ id: sub.id }).first();
    assert.equal(after.status, "canceled");
    assert.equal(new Date(after.ends_at).getTime(), new Date(sub.ends_at).getTime(), "access kept to the period's end");
    assert.match(await say("status", user), new RegExp(`• ${name}: cancelled, ends on ${until}`));
    assert.equal(await deferred("cancel", newUser()), "You have no subscription to cancel here.");
  });

  it("/support opens a conversation in the project's relay; /reply is refused to a member and sent for a linked creator [claim discord.capabilities.support_relay discord.capabilities.management_surface discord.management_commands.support_reply discord.overview.members-ask-for-help-with-support]", async () => {
    const user = newUser("Sam");
    const ack = await say("support", user, { message: "My role did not arrive" });
    assert.match(ack, /^Thanks, your message reached the team\./);
    const { db } = await testDatabase();
    const member = await db("members").where({ project_id: project, connector_key: "discord", external_user_id: user.id }).first();
    const conversation = await db("support_conversations").where({ project_id: project, member_id: member.id }).first();
    assert.equal(conversation?.connector_key, "discord");
    assert.equal(conversation?.status, "open");
    const [incoming] = await db("support_messages").where({ conversation_id: conversation.id });
    assert.equal(incoming?.body, "My role did not arrive");
    assert.equal(incoming?.direction, "in");

    assert.equal(await say("reply", user, { conversation: conversation.id, message: "Sorted?" }), TEAM_ONLY);
    const creator = newUser("Creator");
    assert.equal(await say("reply", creator, { conversation: conversation.id, message: "Sorted?" }), TEAM_ONLY, "not linked yet");
    // Linking a Discord account is another part of the issue: the identity row is what it leaves.
    await db("identities").insert({
      id: randomUUID(),
      user_id: suite.creator.userId,
      connector: "discord",
      account_id: creator.id,
      display_name: "Creator",
      is_primary: false,
      linked_at: new Date(),
    });
    assert.equal(
      await say("reply", creator, { conversation: conversation.id, message: "Here is your role." }),
      "Your reply is on its way to the member.",
    );
    const out = await db("support_messages").where({ conversation_id: conversation.id, direction: "out" });
    assert.deepEqual(
      out.map((m: { body: string; author_user_id: string }) => [m.body, m.author_user_id]),
      [["Here is your role.", suite.creator.userId]],
    );
    const queued = await db("bot_messages").where({ purpose: "support_reply", recipient: user.id });
    assert.equal(queued.length, 1, "queued to the member as the REST reply is");
    assert.match(
      await say("reply", creator, { conversation: randomUUID(), message: "Hello" }),
      /^There is no conversation [0-9a-f-]{36} in this community\.$/,
    );
  });
});
