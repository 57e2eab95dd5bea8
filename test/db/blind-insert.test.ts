// blindInsert (src/db/deferred-statements.ts): a row of plain values becomes the insert knex would
// compile for it; anything knex gives a meaning of its own (undefined = DEFAULT, an object = a raw
// expression or JSON) is left to knex.
import assert from "node:assert/strict";
import knex from "knex";
import { blindInsert } from "../../src/db/deferred-statements.ts";

describe("rows inserted blind without building a knex query", () => {
  const pg = knex({ client: "pg" });
  after(() => pg.destroy());

  it("writes the statement knex compiles for a row of plain values, with the values in column order", () => {
    const at = new Date("2026-11-26T12:00:00Z");
    const row = { name: 'a "quoted" name', id: "7", created_at: at, revoked_at: null, count: 3, flag: true, raw: Buffer.from("x") };
    const statement = blindInsert("personal_access_tokens", row)!;
    const compiled = pg("personal_access_tokens").insert(row).toSQL().toNative();
    // knex orders the columns by name; the text differs only in that order.
    const byName = Object.keys(row).sort();
    assert.equal(
      statement.sql,
      `insert into "personal_access_tokens" (${Object.keys(row)
        .map((c) => `"${c}"`)
        .join(", ")}) values (${Object.keys(row)
        .map((_, i) => `$${i + 1}`)
        .join(", ")})`,
    );
    assert.equal(
      compiled.sql,
      `insert into "personal_access_tokens" (${byName.map((c) => `"${c}"`).join(", ")}) values (${byName.map((_, i) => `$${i + 1}`).join(", ")})`,
    );
    assert.deepEqual(statement.bindings, Object.values(row));
    assert.deepEqual(
      [...compiled.bindings],
      byName.map((c) => row[c as keyof typeof row]),
    );
    assert.equal(statement.insert && statement.blind && statement.native, true);
  });

  it("leaves to knex a row with an undefined value or an object", () => {
    assert.equal(blindInsert("t", { a: 1, b: undefined }), null);
    assert.equal(blindInsert("t", { a: { nested: true } }), null);
    assert.equal(blindInsert("t", { a: ["x"] }), null);
    assert.equal(blindInsert("t", { a: pg.raw("now()") }), null);
  });
});
