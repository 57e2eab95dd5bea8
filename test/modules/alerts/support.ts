// What the alert tests share: a creator's Telegram account linked through a bot as the product links
// it, and what reached the creator.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { redeemIdentityLink, startIdentityLink } from "../../../src/modules/account/identity-links.ts";
import type { InstallationRow } from "../../../src/modules/connectors/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";

/** Links a Telegram account to `creator` through `installation`'s bot, as `/start auth_c-…` does; answers the account id. */
export async function linkThrough(creator: TestCreator, installation: InstallationRow): Promise<string> {
  const { db } = await testDatabase();
  const account = String(randomInt(1_000_000, 9_999_999));
  const now = new Date();
  const { payload } = await db.transaction((trx) =>
    startIdentityLink(createDomainContext(trx, { ...systemActor(creator.teamId), userId: creator.userId }, now), installation),
  );
  const result = await db.transaction((trx) =>
    redeemIdentityLink(createDomainContext(trx, systemActor(installation.team_id), now), {
      installation,
      account: { connectorKey: "telegram", externalUserId: account, displayName: "Ada Creator" },
      token: payload.slice("auth_".length),
    }),
  );
  assert.equal(result.linked, true, JSON.stringify(result));
  return account;
}

/** The creator's alerts, bot messages to `account` and mail, as the tests read them. */
export async function deliveries(creator: Pick<TestCreator, "userId" | "email">, account: string | null = null) {
  const { db } = await testDatabase();
  const alerts = await db("creator_alerts").where({ user_id: creator.userId }).orderBy("created_at");
  const messages = account ? await db("bot_messages").where({ recipient: account, purpose: "alert" }).orderBy("created_at") : [];
  const mail = await db("mail_outbox").where({ to_address: creator.email }).orderBy("created_at");
  return { alerts, messages, mail };
}
