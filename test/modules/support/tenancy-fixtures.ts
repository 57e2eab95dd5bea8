// Tenancy fixtures of the Support area (see test/tenancy/types.ts). Every route is under
// /v1/projects/{project}: a fixture makes its row in a project (inside the allow-list when asked),
// and "outside" is the same row in a project outside it.
import { randomUUID } from "node:crypto";
import type { AreaFixtures, FixtureScope } from "../../tenancy/types.ts";
import { catalogFixture, projectExists, rowExists } from "../resources/tenancy-support.ts";
import { openConversation } from "./inbox.ts";

const replyBody = () => ({ title: `Reply ${randomUUID().slice(0, 8)}`, body: "Here is a fresh invite link." });

async function conversationIn(scope: FixtureScope, projectId: string) {
  const conversation = await openConversation(scope.owner, projectId);
  return { project: projectId, conversation: conversation.id };
}
const conversationExists = ({ conversation }: { conversation: string }) => rowExists("support_conversations", conversation);

async function replyIn(scope: FixtureScope, projectId: string) {
  const res = await scope.rest.post(`/v1/projects/${projectId}/support/canned-replies`, replyBody());
  if (res.status !== 201) throw new Error(`canned reply not created: ${JSON.stringify(res.body)}`);
  return { project: projectId, canned_reply: res.body.data.id as string };
}
const replyExists = ({ canned_reply }: { canned_reply: string }) => rowExists("support_canned_replies", canned_reply);

/** A project holding a conversation, so a list that leaked would show a row. */
async function projectWithConversation(scope: FixtureScope, projectId: string) {
  await openConversation(scope.owner, projectId);
  return { project: projectId };
}

export const tenancyFixtures: AreaFixtures = {
  list_support_conversations: catalogFixture(projectWithConversation, projectExists),
  get_support_conversation: catalogFixture(conversationIn, conversationExists),
  list_support_messages: catalogFixture(conversationIn, conversationExists),
  update_support_conversation: catalogFixture(conversationIn, conversationExists, { body: () => ({ status: "closed" as const }) }),
  reply_to_support_conversation: catalogFixture(conversationIn, conversationExists, { body: () => ({ body: "Here is a fresh invite link." }) }),
  list_canned_replies: catalogFixture(async (_scope, project) => ({ project }), projectExists),
  create_canned_reply: catalogFixture(async (_scope, project) => ({ project }), projectExists, { body: replyBody }),
  update_canned_reply: catalogFixture(replyIn, replyExists, { body: () => ({ body: "Changed." }) }),
  delete_canned_reply: catalogFixture(replyIn, replyExists),
};
