// What the Support tests share: a member writing to a project through its connector's support
// relay, the way a platform delivers it (the domain entry point the Telegram bot calls).
import { randomInt } from "node:crypto";
import { createDomainContext, type Actor } from "../../../src/db/tenant.ts";
import type { ConnectorRegistry } from "../../../src/modules/connectors/registry.ts";
import type { InstallationRow } from "../../../src/modules/connectors/tables.ts";
import { receiveSupportMessage, type SupportReceipt } from "../../../src/modules/support/relay.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { seedInstallation } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry } from "../../helpers/server.ts";

export interface Writer {
  teamId: string;
}

/** A new platform account's user id (each one becomes a new member). */
export const newAccount = () => String(randomInt(100_000_000, 999_999_999));

/** `account` writes `text` to the project's support (through its Telegram installation unless told). */
export async function memberWrites(
  creator: Writer,
  projectId: string,
  options: { account?: string; text?: string; name?: string | null; connector?: string; connectors?: Pick<ConnectorRegistry, "packages"> } = {},
): Promise<SupportReceipt> {
  const { db } = await testDatabase();
  const installationId = await seedInstallation(creator.teamId, projectId, options.connector ?? "telegram");
  const installation = (await db("connector_installations").where({ id: installationId }).first()) as InstallationRow;
  const actor: Actor = { userId: null, teamId: creator.teamId, projectIds: null, kind: "webhook", credentialKind: null, requestId: null };
  const account = {
    connectorKey: installation.connector_key,
    externalUserId: options.account ?? newAccount(),
    displayName: options.name === undefined ? "Ada Member" : options.name,
  };
  return db.transaction((trx) =>
    receiveSupportMessage(createDomainContext(trx, actor, new Date()), options.connectors ?? repositoryConnectorRegistry(), {
      installation,
      account,
      text: options.text ?? "My invite link expired",
    }),
  );
}

/** A new conversation of the project (its first message written by a new member). */
export async function openConversation(creator: Writer, projectId: string, text?: string) {
  const receipt = await memberWrites(creator, projectId, text === undefined ? {} : { text });
  if (receipt.kind !== "opened") throw new Error(`no conversation opened: ${JSON.stringify(receipt)}`);
  return receipt.conversation;
}
