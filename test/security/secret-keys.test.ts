// Which names the activity log drops: credentials, never ids (token_id is the path parameter of
// /v1/tokens/{token_id}, and an audit trail must say which token was deleted).
import assert from "node:assert/strict";
import { isSecretKey } from "../../src/security/secret-keys.ts";

describe("secret keys", () => {
  it("treats credential names as secret and ids as ids", () => {
    for (const key of ["token", "bot_token", "access_token", "client_secret", "Password", "authorization", "api_key", "secret_token_hash"])
      assert.equal(isSecretKey(key), true, key);
    for (const key of ["token_id", "id", "project", "webhook_endpoint", "name"]) assert.equal(isSecretKey(key), false, key);
  });
});
