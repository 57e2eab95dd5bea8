// Creator passwords: scrypt at the production cost unless code passes another, and a hash verifies
// at the cost stored beside it (so test creators, hashed cheaply, still sign in).
import assert from "node:assert/strict";
import { hashPassword, PASSWORD_COST, verifyPassword } from "../../src/security/passwords.ts";
import { TEST_PASSWORD_COST } from "../helpers/fixtures.ts";

describe("password hashing", () => {
  it("hashes at the production cost by default and verifies only the same password", async () => {
    const stored = await hashPassword("correct horse battery");
    assert.match(stored, new RegExp(`^scrypt\\$${PASSWORD_COST.N}\\$${PASSWORD_COST.r}\\$${PASSWORD_COST.p}\\$`));
    assert.equal(PASSWORD_COST.N, 16384);
    assert.equal(await verifyPassword("correct horse battery", stored), true);
    assert.equal(await verifyPassword("correct horse batterY", stored), false);
  });

  it("verifies a hash at the cost stored with it (the tests' cheaper cost)", async () => {
    assert.ok(TEST_PASSWORD_COST.N < PASSWORD_COST.N);
    const stored = await hashPassword("correct horse battery", TEST_PASSWORD_COST);
    assert.match(stored, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await verifyPassword("correct horse battery", stored), true);
    assert.equal(await verifyPassword("wrong", stored), false);
  });

  it("refuses a hash of another scheme", async () => {
    assert.equal(await verifyPassword("x", "bcrypt$10$abc"), false);
  });
});
