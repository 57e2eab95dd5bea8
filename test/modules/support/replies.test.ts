// The team's replies in support conversations (issue 34, item 4): recorded as outbound messages,
// queued to the member through the conversation's bot, with a canned reply's text when asked;
// refusals write nothing; the member's next messages keep joining the conversation.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { ApiClient, expectError, type TestResponse } from "../../helpers/http.ts";
import { connectMcp, startMcp, type RunningMcp } from "../../helpers/mcp.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, postTelegramMessage } from "../connectors/support.ts";
import { activityOf, expectGuarded, patch, teamSnapshot } from "../resources/support.ts";
import { memberWrites, newAccount, openConversation } from "./inbox.ts";

const TABLES = ["support_conversations", "support_messages", "bot_messages"];

interface BotMessageRow {
  purpose: string;
  recipient: string;
  text: string;
  status: string;
  installation_id: string;
  connector_key: string;
}

/** The bot messages queued for a support message. */
async function botMessagesFor(messageId: string): Promise<BotMessageRow[]> {
  const { db } = await testDatabase();
  return db("bot_messages").where({ subject_type: "support_message", subject_id: messageId }).select("*");
}

describe("support replies", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { label: "replies", tier: "growth", projects: 3 } });
  const project = () => suite.creator.projectIds[0]!;
  const base = (projectId = project()) => `/v1/projects/${projectId}/support/conversations`;
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  const reply = (id: string, body: unknown, options: { projectId?: string; client?: ApiClient; idempotencyKey?: string } = {}) =>
    (options.client ?? suite.client).request("POST", `${base(options.projectId)}/${id}/messages`, {
      body,
      ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    });
  const cannedReply = async (body: string, projectId = project()) => {
    const res = await suite.client.post(`/v1/projects/${projectId}/support/canned-replies`, { title: `Reply ${randomUUID().slice(0, 8)}`, body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: string; body: string };
  };
  /** A refusal leaves every row, entry and event as it was. */
  const refused = async (send: () => Promise<TestResponse>, status: number, code: string) => {
    const before = await snapshot();
    const error = expectError(await send(), status, code);
    assert.deepEqual(await snapshot(), before, "a refused reply writes nothing");
    return error;
  };

  it("replies with text: 201 with the message (out, by the acting user), queued to the member, the conversation updated", async () => {
    const account = newAccount();
    const opened = await memberWrites(suite.creator, project(), { account, text: "Where is my invite?" });
    if (opened.kind !== "opened") throw new Error("not opened");
    const id = opened.conversation.id;
    const res = await reply(id, { body: "  Here is a fresh link.  " });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const message = res.body.data;
    assert.deepEqual(
      [message.conversation_id, message.direction, message.body, message.author_user_id, message.canned_reply_id],
      [id, "out", "Here is a fresh link.", suite.creator.userId, null],
    );
    const [queued, ...more] = await botMessagesFor(message.id);
    assert.equal(more.length, 0);
    assert.deepEqual(
      [queued!.purpose, queued!.recipient, queued!.text, queued!.status, queued!.installation_id, queued!.connector_key],
      ["support_reply", account, "Here is a fresh link.", "queued", opened.conversation.installation_id, "telegram"],
    );
    const read = (await suite.client.get(`${base()}/${id}`)).body.data;
    assert.deepEqual(
      [read.status, read.message_count, read.last_message_direction, read.last_message_preview, read.last_message_at],
      ["open", 2, "out", "Here is a fresh link.", message.created_at],
    );
    const listed = await suite.client.get(`${base()}/${id}/messages?sort_direction=asc`);
    assert.deepEqual(
      listed.body.data.map((m: { direction: string; body: string }) => [m.direction, m.body]),
      [
        ["in", "Where is my invite?"],
        ["out", "Here is a fresh link."],
      ],
    );
    const events = (await eventsOf(suite.creator.teamId, "support.message.sent")).filter((e) => e.data.conversation.id === id);
    assert.equal(events.length, 1);
    assertValidEvent(events[0]!);
    const { recent_messages: _recent, ...conversation } = read;
    assert.deepEqual(events[0]!.data, { conversation, message });
    const entries = await activityOf(suite.creator.teamId, "support_message_sent", id);
    assert.deepEqual(
      entries.map((e) => e.subject_type),
      ["support-conversation"],
    );
  });

  it("replies with a canned reply: its text is sent and the message names it (null once the reply is deleted)", async () => {
    const account = newAccount();
    const conversation = (await memberWrites(suite.creator, project(), { account })) as { conversation: { id: string } };
    const canned = await cannedReply("Here is a fresh invite link; it works once and for 24 hours.");
    const res = await reply(conversation.conversation.id, { canned_reply_id: canned.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual([res.body.data.body, res.body.data.canned_reply_id, res.body.data.direction], [canned.body, canned.id, "out"]);
    const [queued] = await botMessagesFor(res.body.data.id);
    assert.deepEqual([queued!.purpose, queued!.recipient, queued!.text], ["support_reply", account, canned.body]);
    assert.equal((await suite.client.delete(`/v1/projects/${project()}/support/canned-replies/${canned.id}`)).status, 204);
    const listed = (await suite.client.get(`${base()}/${conversation.conversation.id}/messages`)).body.data;
    assert.deepEqual([listed[0].id, listed[0].body, listed[0].canned_reply_id], [res.body.data.id, canned.body, null]);
  });

  describe("through the Telegram bot", () => {
    const own = () => suite.creator.projectIds[2]!;
    let installation: { id: string };
    let bot: { id: number };
    before(async () => {
      ({ installation, bot } = await installTelegram(suite.client, own()));
    });

    /** `member` writes `text` to the bot in private, as Telegram delivers it to the updates route. */
    const send = async (member: number, text: string) => {
      const res = await postTelegramMessage(suite.api.url, installation.id, member, text, { firstName: "Lin" });
      assert.equal(res.status, 200);
    };
    it("a member's messages keep arriving into the same conversation after a reply", async () => {
      const member = randomInt(1_000_000, 9_999_999);
      await send(member, "My invite link expired");
      const [conversation] = (await suite.client.get(base(own()))).body.data;
      const sent = await reply(conversation.id, { body: "Here is a new one." }, { projectId: own() });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      assert.equal((await botMessagesFor(sent.body.data.id))[0]!.recipient, String(member));
      await send(member, "Thanks, it works");
      const read = (await suite.client.get(`${base(own())}/${conversation.id}`)).body.data;
      assert.deepEqual([read.message_count, read.last_message_direction, read.last_message_preview], [3, "in", "Thanks, it works"]);
      assert.deepEqual(
        read.recent_messages.map((m: { direction: string; body: string }) => [m.direction, m.body]),
        [
          ["in", "My invite link expired"],
          ["out", "Here is a new one."],
          ["in", "Thanks, it works"],
        ],
      );
      const opened = (await suite.client.get(`${base(own())}?member_id=${read.member_id}`)).body.data;
      assert.deepEqual(
        opened.map((c: { id: string }) => c.id),
        [conversation.id],
        "no second conversation",
      );
    });

    it("the bot message worker delivers the reply to the member on the fake Telegram", async () => {
      const member = randomInt(1_000_000, 9_999_999);
      await send(member, "Is anyone there?");
      const [conversation] = (await suite.client.get(base(own()))).body.data;
      const sent = await reply(conversation.id, { body: "Yes, we are here." }, { projectId: own() });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      const mark = (await testPlatform()).calls.length;
      const { db } = await testDatabase();
      const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
      const now = new Date(Date.now() + 1000);
      await sendDueBotMessages({ db, kv: await testKv(), env, logger: testLogger, now, installations: [installation.id] });
      const delivered = (await testPlatform()).calls
        .slice(mark)
        .filter((c) => c.name === "sendMessage" && c.bot === String(bot.id) && c.params.chat_id === String(member));
      assert.deepEqual(
        delivered.map((c) => [c.params.chat_id, c.params.text]),
        [[String(member), "Yes, we are here."]],
      );
      const [row] = await botMessagesFor(sent.body.data.id);
      assert.equal(row!.status, "sent");
    });
  });

  it("refuses neither or both of body and canned_reply_id, and an empty body, naming the field (422)", async () => {
    const conversation = await openConversation(suite.creator, project());
    const canned = await cannedReply("A saved answer.");
    const cases: [unknown, string][] = [
      [{}, "body"],
      [{ body: "Hello", canned_reply_id: canned.id }, "canned_reply_id"],
      [{ body: "" }, "body"],
      [{ body: "   \n " }, "body"],
      [{ body: "x".repeat(4097) }, "body"],
      [{ canned_reply_id: "nope" }, "canned_reply_id"],
      [{ body: "Hello", signature: "x" }, ""],
    ];
    for (const [body, field] of cases) {
      const error = await refused(() => reply(conversation.id, body), 422, "VALIDATION_FAILED");
      assert.ok(
        Object.keys(error.fields ?? {}).some((k) => k.startsWith(field)),
        `${JSON.stringify(body).slice(0, 60)}: ${JSON.stringify(error.fields)}`,
      );
    }
  });

  it("refuses text longer than the connector's messaging.max_length, naming the field it came from", async () => {
    const own = suite.creator.projectIds[1]!;
    const discord = await memberWrites(suite.creator, own, { connector: "discord" });
    if (discord.kind !== "opened") throw new Error("not opened");
    const long = "x".repeat(2001);
    const error = await refused(() => reply(discord.conversation.id, { body: long }, { projectId: own }), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(error.fields), ["body"]);
    assert.match(error.fields.body[0], /2000 characters/);
    const canned = await cannedReply(long, own);
    const cannedError = await refused(
      () => reply(discord.conversation.id, { canned_reply_id: canned.id }, { projectId: own }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(cannedError.fields), ["canned_reply_id"]);
    assert.equal((await reply(discord.conversation.id, { body: "x".repeat(2000) }, { projectId: own })).status, 201, "exactly the limit is sent");
    const telegram = await openConversation(suite.creator, project());
    assert.equal((await reply(telegram.id, { body: long })).status, 201, "Telegram allows 4096");
  });

  it("answers 404 for an unknown conversation, one of another project, and a canned reply of another project", async () => {
    const conversation = await openConversation(suite.creator, project());
    await refused(() => reply(randomUUID(), { body: "Hello" }), 404, "RESOURCE_NOT_FOUND");
    await refused(() => reply(conversation.id, { body: "Hello" }, { projectId: suite.creator.projectIds[1]! }), 404, "RESOURCE_NOT_FOUND");
    const elsewhere = await cannedReply("From the other project.", suite.creator.projectIds[1]!);
    for (const cannedId of [elsewhere.id, randomUUID()])
      await refused(() => reply(conversation.id, { canned_reply_id: cannedId }), 404, "RESOURCE_NOT_FOUND");
  });

  it("refuses a closed conversation (422, naming the member's open one when there is one); reopened, it takes replies", async () => {
    const account = newAccount();
    const first = await memberWrites(suite.creator, project(), { account });
    if (first.kind !== "opened") throw new Error("not opened");
    const id = first.conversation.id;
    assert.equal((await patch(suite.client, `${base()}/${id}`, { status: "closed" })).status, 200);
    const closed = await refused(() => reply(id, { body: "Hello" }), 422, "VALIDATION_FAILED");
    assert.deepEqual([closed.fields, closed.context], [undefined, undefined]);
    assert.equal((await patch(suite.client, `${base()}/${id}`, { status: "open" })).status, 200);
    assert.equal((await reply(id, { body: "Hello again" })).status, 201);
    assert.equal((await patch(suite.client, `${base()}/${id}`, { status: "closed" })).status, 200);
    const second = await memberWrites(suite.creator, project(), { account, text: "Me again" });
    if (second.kind !== "opened") throw new Error("not opened");
    const elsewhere = await refused(() => reply(id, { body: "Hello" }), 422, "VALIDATION_FAILED");
    assert.deepEqual(elsewhere.context, { conversation_id: second.conversation.id });
  });

  it("requires a credential (401) and support-conversation:update (403 naming it)", async () => {
    const conversation = await openConversation(suite.creator, project());
    await expectGuarded(suite.client, suite.creator, {
      method: "POST",
      path: `${base()}/${conversation.id}/messages`,
      ability: "support-conversation:update",
      body: { body: "Hello" },
    });
  });

  it("answers 404 for another team's conversation and leaves it alone", async () => {
    const other = await createTestCreator({ label: "replies-other" });
    const theirs = await openConversation(other, other.projectIds[0]!);
    await refused(() => reply(theirs.id, { body: "Hello" }, { projectId: other.projectIds[0]! }), 404, "RESOURCE_NOT_FOUND");
    await refused(() => reply(theirs.id, { body: "Hello" }), 404, "RESOURCE_NOT_FOUND");
    const { db } = await testDatabase();
    assert.equal(Number((await db("support_messages").where({ conversation_id: theirs.id }).count({ n: "*" }).first())!.n), 1);
    const ours = new ApiClient(suite.api.url, other.token);
    assert.equal((await reply(theirs.id, { body: "Hello" }, { projectId: other.projectIds[0]!, client: ours })).status, 201);
  });

  it("replays a retried reply with the same Idempotency-Key: one message, one bot message", async () => {
    const conversation = await openConversation(suite.creator, project());
    const key = randomUUID();
    const first = await reply(conversation.id, { body: "Only once" }, { idempotencyKey: key });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const before = await snapshot();
    const again = await reply(conversation.id, { body: "Only once" }, { idempotencyKey: key });
    assert.deepEqual([again.status, again.body], [201, first.body]);
    assert.deepEqual(await snapshot(), before);
    assert.equal((await botMessagesFor(first.body.data.id)).length, 1);
    expectError(await reply(conversation.id, { body: "Something else" }, { idempotencyKey: key }), 409, "IDEMPOTENCY_KEY_REUSED");
    expectError(
      await suite.client.request("POST", `${base()}/${conversation.id}/messages`, { body: { body: "x" }, idempotencyKey: null }),
      400,
      "IDEMPOTENCY_KEY_MISSING",
    );
  });

  describe("over MCP", () => {
    let mcp: RunningMcp;
    before(async () => {
      mcp = await startMcp({ baseUrl: suite.api.url });
    });
    after(() => mcp?.close());

    it("reply_to_support_conversation replies (the tool the spec derives), and refuses as REST does", async () => {
      const account = newAccount();
      const opened = await memberWrites(suite.creator, project(), { account });
      if (opened.kind !== "opened") throw new Error("not opened");
      const client = await connectMcp(mcp, suite.creator.token, { toolsets: "support" });
      try {
        const { tools } = await client.listTools();
        const tool = tools.find((t) => t.name === "reply_to_support_conversation");
        assert.ok(tool, "listed in the support toolset");
        const args = { project: project(), conversation: opened.conversation.id };
        const result = (await client.callTool({ name: tool.name, arguments: { ...args, body: "Answered from an agent" } })) as CallToolResult;
        assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
        const message = (result.structuredContent as { data: { id: string; direction: string; author_user_id: string } }).data;
        assert.deepEqual([message.direction, message.author_user_id], ["out", suite.creator.userId]);
        const [queued] = await botMessagesFor(message.id);
        assert.deepEqual([queued!.purpose, queued!.recipient, queued!.text], ["support_reply", account, "Answered from an agent"]);
        const both = (await client.callTool({ name: tool.name, arguments: { ...args } })) as CallToolResult;
        assert.equal(both.isError, true);
        const envelope = both.structuredContent as { error: { code: string; fields: Record<string, string[]> } };
        assert.deepEqual([envelope.error.code, Object.keys(envelope.error.fields)], ["VALIDATION_FAILED", ["body"]]);
      } finally {
        await client.close();
      }
    });
  });
});
