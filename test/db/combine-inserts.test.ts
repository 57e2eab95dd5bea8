// combineInserts (src/db/deferred-statements.ts): a transaction's independent inserts as one
// statement, each a part of a WITH with its placeholders renumbered after the parts before it; the
// text of a sequence of parts is built once and handed out again after that.
import assert from "node:assert/strict";
import { combineInserts, type Compiled } from "../../src/db/deferred-statements.ts";

const part = (sql: string, bindings: unknown[]): Compiled => ({ sql, bindings, insert: true });

describe("independent inserts combined into one statement", () => {
  const token = part("insert into t (a, b) values ($1, $2)", ["a", 2]);
  const activity = part("insert into log (rows) select * from jsonb_to_recordset($1::jsonb)", ["[]"]);
  const kept = part("insert into k (key, body) values ($1, $2)", ["key", "body"]);

  it("renumbers each part's placeholders after the parts before it and binds the values in order", () => {
    const combined = combineInserts([token, activity, kept]);
    assert.equal(
      combined.sql,
      "with s0 as (insert into t (a, b) values ($1, $2)), s1 as (insert into log (rows) select * from jsonb_to_recordset($3::jsonb)), " +
        "s2 as (insert into k (key, body) values ($4, $5)) select",
    );
    assert.deepEqual(combined.bindings, ["a", 2, "[]", "key", "body"]);
  });

  it("hands out the same text for the same parts, with each call's own values", () => {
    const first = combineInserts([token, activity, kept]);
    const second = combineInserts([part(token.sql, ["c", 3]), part(activity.sql, ["[{}]"]), part(kept.sql, ["k2", "b2"])]);
    assert.equal(second.sql, first.sql);
    assert.deepEqual(second.bindings, ["c", 3, "[{}]", "k2", "b2"]);
  });

  it("tells sequences apart by their order and by every part", () => {
    assert.equal(
      combineInserts([kept, token]).sql,
      "with s0 as (insert into k (key, body) values ($1, $2)), s1 as (insert into t (a, b) values ($3, $4)) select",
    );
    assert.equal(
      combineInserts([token, kept]).sql,
      "with s0 as (insert into t (a, b) values ($1, $2)), s1 as (insert into k (key, body) values ($3, $4)) select",
    );
    assert.equal(combineInserts([token]).sql, "with s0 as (insert into t (a, b) values ($1, $2)) select");
  });

  it("numbers again when a part of a known text comes with another number of values", () => {
    combineInserts([token, kept]);
    const odd = combineInserts([part(token.sql, ["only one", 1, "extra"]), kept]);
    assert.equal(odd.sql, "with s0 as (insert into t (a, b) values ($1, $2)), s1 as (insert into k (key, body) values ($4, $5)) select");
  });
});
