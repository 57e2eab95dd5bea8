// Issue 47: response enums are open unions ("a" | "b" | (string & {})), so a value the API adds under its
// additive-change policy reaches a compiled client as a string it can still compare; request enums stay
// closed, so a misspelled value sent is a compile error. `npm run typecheck` compiles this file (an
// unused @ts-expect-error fails it); the mocha part shows that the same values behave at run time.
import assert from "node:assert/strict";
import type { components, operations } from "../../sdk/src/index.ts";

type Schemas = components["schemas"];
/** true only when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}
type Open<T extends string> = T | (string & {});

// Responses: the known values, then any other string.
expectType<Equal<Schemas["Plan"]["billing_cycle"], Open<"day" | "week" | "month" | "year" | "lifetime">>>();
expectType<Equal<Schemas["Plan"]["status"], Open<"draft" | "published" | "archived">>>();
expectType<Equal<Schemas["ActorKind"], Open<"human" | "api_token" | "mcp" | "webhook" | "system" | "automation">>>();
// Nullable ones keep null; arrays of a shared enum are open in a response.
expectType<Equal<Schemas["ActivityEntry"]["credential_kind"], Open<"personal_access_token" | "oauth_access_token" | "session"> | null>>();
const newerCycle: Schemas["Plan"]["billing_cycle"] = "fortnight";
// The known values survive the open union (editors still offer them; a comparison still narrows nothing away).
const known: Extract<Schemas["Plan"]["billing_cycle"], "month"> = "month";

// Requests: closed, a typo does not compile (a body, a shared enum component, a query filter).
expectType<Equal<Schemas["PlanCreate"]["billing_cycle"], Schemas["BillingCycle"]>>();
expectType<Equal<Schemas["BillingCycle"], "day" | "week" | "month" | "year" | "lifetime">>();
// @ts-expect-error a request's billing cycle is one of the spec's values
const typoInBody: Schemas["PlanCreate"]["billing_cycle"] = "monthly";
type PlanFilter = NonNullable<NonNullable<operations["list_plans"]["parameters"]["query"]>["status"]>;
expectType<Equal<PlanFilter, "draft" | "published" | "archived">>();
// @ts-expect-error a filter value is one of the spec's values
const typoInQuery: PlanFilter = "publish";
// The error catalog stays closed (the SDK's SubBridgeErrorCode is its open form).
// @ts-expect-error not a code of the catalog
const notACode: Schemas["ErrorCode"] = "NOT_A_CODE";

/** What a client writes: known values handled, anything newer falls to a default branch. */
function describeCycle(cycle: Schemas["Plan"]["billing_cycle"]): string {
  switch (cycle) {
    case "month":
      return "monthly";
    case "year":
      return "yearly";
    default:
      return `every ${cycle}`;
  }
}

describe("sdk open response enums (types)", () => {
  it("a value newer than the SDK is handled by the default branch, the known ones by theirs", () => {
    assert.equal(describeCycle(known), "monthly");
    assert.equal(describeCycle(newerCycle), "every fortnight");
    void typoInBody;
    void typoInQuery;
    void notACode;
  });
});
