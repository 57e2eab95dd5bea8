// What the account tests share: linking an identity as a connector does, and the PUT call.
import { randomBytes } from "node:crypto";
import { ApiClient, type TestResponse } from "../../helpers/http.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { linkIdentity } from "../../../src/modules/account/identities.ts";

export const accountId = (label = "acct") => `${label}-${randomBytes(5).toString("hex")}`;

/** Links a platform account to the creator, as a connector does (its entry point). */
export async function link(creator: TestCreator, options: { connector?: string; account?: string; when?: Date; displayName?: string | null } = {}) {
  const { db } = await testDatabase();
  const ctx = createDomainContext(db, { ...systemActor(creator.teamId), userId: creator.userId }, options.when ?? new Date());
  return linkIdentity(ctx, {
    connector: options.connector ?? "telegram",
    accountId: options.account ?? accountId(),
    displayName: options.displayName === undefined ? "@someone" : options.displayName,
  });
}

export function put(client: ApiClient, body: unknown): Promise<TestResponse> {
  return client.request("PUT", "/v1/me/alert-destinations", { body });
}

/** A fresh creator (a person of their own) and a client with their full token on apiUrl. */
export async function freshCreator(apiUrl: string, label = "account") {
  const c = await createTestCreator({ label });
  return { c, client: new ApiClient(apiUrl, c.token) };
}
