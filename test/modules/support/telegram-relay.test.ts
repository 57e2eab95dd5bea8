// The Telegram bot relays a member's private message that is not a command to the project's
// support: the first one opens a conversation (acknowledged in the chat), later ones join it.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { SUPPORT_ACKNOWLEDGEMENT } from "../../../src/apps/api/telegram-updates.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testPlatform } from "../../helpers/platforms.ts";
import { installTelegram, postTelegramMessage } from "../connectors/support.ts";

describe("the Telegram bot's support relay", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let installation: { id: string };
  let bot: { id: number };

  before(async () => {
    ({ installation, bot } = await installTelegram(suite.client, suite.creator.projectIds[0]!));
  });

  async function send(userId: number, text: string, chat: "private" | "group" | "supergroup" = "private") {
    const res = await postTelegramMessage(suite.api.url, installation.id, userId, text, { firstName: "Grace", lastName: "Member", chat });
    assert.equal(res.status, 200);
  }

  const repliesSince = async (from: number) =>
    (await testPlatform()).calls.slice(from).filter((c) => c.bot === String(bot.id) && c.name === "sendMessage");

  it("opens a conversation on a member's first message (acknowledged), appends later ones (no answer) [claim telegram.capabilities.support_relay telegram.relay_modes.private_chat]", async () => {
    const member = randomInt(1_000_000, 9_999_999);
    const mark = (await testPlatform()).calls.length;
    await send(member, "Where is my invite?");
    const [ack] = await repliesSince(mark);
    assert.deepEqual([ack?.params.chat_id, ack?.params.text], [String(member), SUPPORT_ACKNOWLEDGEMENT]);
    const second = (await testPlatform()).calls.length;
    await send(member, "Still waiting");
    assert.equal((await repliesSince(second)).length, 0);
    const list = await suite.client.get(`/v1/projects/${suite.creator.projectIds[0]}/support/conversations`);
    const conversation = list.body.data.find((c: { member_display_name: string }) => c.member_display_name === "Grace Member");
    assert.deepEqual(
      [conversation.subject, conversation.message_count, conversation.installation_id, conversation.last_message_preview],
      ["Where is my invite?", 2, installation.id, "Still waiting"],
    );
    const { db } = await testDatabase();
    const entry = await db("activity_log").where({ subject_id: conversation.id, event: "support_conversation_opened" }).first();
    assert.equal(entry.actor_kind, "webhook");
    const types = (await eventsOf(suite.creator.teamId)).filter((e) => e.data.conversation?.id === conversation.id).map((e) => e.type);
    assert.deepEqual(types, ["support.conversation.opened", "support.message.received"]);
  });

  it("relays nothing for another command or a group message", async () => {
    const member = randomInt(1_000_000, 9_999_999);
    const { db } = await testDatabase();
    const count = async () => Number((await db("support_messages").where({ team_id: suite.creator.teamId }).count({ n: "*" }).first())!.n);
    const before = await count();
    await send(member, "/help");
    await send(member, "hello group", "group");
    assert.equal(await count(), before);
  });
});
