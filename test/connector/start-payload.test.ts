// The start payload of a connector deep link, read as the service description orders it (Endpoints,
// Distribution): one test per row of its two tables, then the reading order's edges.
import assert from "node:assert/strict";
import { commandStartPayload, readStartPayload } from "../../sdk/src/connector/index.ts";

const PLAN = "0f8fad5b-d9cb-469f-a165-70867728950e";
const USER = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const PROJECT = "3b241101-e2bb-4255-8caf-4136c566a962";

describe("connector start payload", () => {
  describe("what the deep link carries (Query used → Start payload → Acted on by the bot)", () => {
    it("access_code: the code verbatim, acted on (a bare UUID: plan lookup first, then redeemed as a code)", () => {
      const code = "5d1f5c9e-52a1-4c8f-9a61-0e0b7c3b4d21";
      assert.deepEqual(readStartPayload(code), { kind: "uuid", value: code });
    });
    it("plan_id: the plan's bare UUID, acted on (opens that plan's checkout)", () => {
      assert.deepEqual(readStartPayload(PLAN), { kind: "uuid", value: PLAN });
    });
    it("custom: the supplied string, not acted on (passed through, the home screen opens)", () => {
      for (const custom of ["spring-promo", "launch_2026", "A", "x".repeat(64)]) assert.deepEqual(readStartPayload(custom), { kind: "home" }, custom);
    });
    it("none: project_<uuid>, not acted on (opens the project home)", () => {
      assert.deepEqual(readStartPayload(`project_${PROJECT}`), { kind: "home" });
    });
  });

  describe("admin commands by link (Command → Link payload)", () => {
    it("check <user_id> is -check_-<user_id>", () => {
      assert.deepEqual(readStartPayload(`-check_-${USER}`), { kind: "command", name: "check", args: [USER] });
      assert.equal(commandStartPayload("check", [USER]), `-check_-${USER}`);
    });
    it("ban <user_id> is -ban_-<user_id>", () => {
      assert.deepEqual(readStartPayload(`-ban_-${USER}`), { kind: "command", name: "ban", args: [USER] });
      assert.equal(commandStartPayload("ban", [USER]), `-ban_-${USER}`);
    });
    it("ban <user_id> confirm is -ban_-<user_id>_-confirm", () => {
      assert.deepEqual(readStartPayload(`-ban_-${USER}_-confirm`), { kind: "command", name: "ban", args: [USER, "confirm"] });
      assert.equal(commandStartPayload("ban", [USER, "confirm"]), `-ban_-${USER}_-confirm`);
    });
  });

  describe("the reading order", () => {
    it("auth_<token> first: the portal's sign-in handoff, whatever the token holds", () => {
      assert.deepEqual(readStartPayload("auth_abc123"), { kind: "auth", token: "abc123" });
      assert.deepEqual(readStartPayload(`auth_${PLAN}`), { kind: "auth", token: PLAN });
      assert.deepEqual(readStartPayload("auth_-ban_-x"), { kind: "auth", token: "-ban_-x" });
      assert.deepEqual(readStartPayload("auth_"), { kind: "home" }, "no token");
    });
    it("a command with no arguments, and commands whose names hold an underscore are unreachable", () => {
      assert.deepEqual(readStartPayload("-help"), { kind: "command", name: "help", args: [] });
      assert.deepEqual(readStartPayload("-set_price_-5"), { kind: "home" }, "split on underscores, `price` is no argument");
      assert.throws(() => commandStartPayload("set_price", ["5"]), /underscore/);
      assert.throws(() => commandStartPayload("ban", ["a_b"]), /underscore/);
      assert.throws(() => commandStartPayload("", []), /empty/);
    });
    it("malformed commands open the home screen", () => {
      for (const payload of ["-", "--ban", "-ban_", "-ban_-", "-ban_x", "-ban__-x"])
        assert.deepEqual(readStartPayload(payload), { kind: "home" }, payload);
    });
    it("only a bare UUID is looked up; no key=value syntax, no UUID inside a longer string", () => {
      for (const payload of [`plan=${PLAN}`, `plan_id=${PLAN}`, `${PLAN}x`, ` ${PLAN}`, PLAN.replace(/-/g, ""), "", null, undefined]) {
        assert.deepEqual(readStartPayload(payload), { kind: "home" }, String(payload));
      }
    });
    it("every command payload reads back as the command it was built from", () => {
      for (const [name, args] of [
        ["check", [USER]],
        ["ban", [USER, "confirm"]],
        ["stats", []],
        ["grant", ["-x", "y"]],
      ] as const) {
        assert.deepEqual(readStartPayload(commandStartPayload(name, args)), { kind: "command", name, args: [...args] });
      }
    });
  });
});
