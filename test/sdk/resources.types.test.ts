// What a consumer's compiler says about the resource methods and the path-string client: the
// issue's program compiles with no defaulted field spelled out, and a misspelled option, a key on a
// read, a missing required field or a missing path parameter does not (each `@ts-expect-error`
// fails the snippet if its line compiles).
import assert from "node:assert/strict";
import { snippetErrors } from "./typecheck-snippets.ts";

const compiles = `
import { createClient, NotFoundError, type PagePromise, type components } from "@subbridge/sdk";

const sb = createClient({ baseUrl: "http://localhost:4000/v1", token: process.env.SUBBRIDGE_TOKEN });
declare const project: string;
declare const resourceId: string;
declare const signal: AbortSignal | undefined;

export async function program() {
  const projects = await sb.projects.list({ per_page: 50 });
  const first: components["schemas"]["Project"] | undefined = projects.data[0];
  await sb.projectConnectors.install(project, "telegram", { fields: { bot_token: "123:abc" } }, { idempotencyKey: "install-1" });
  // Defaulted fields (early_admission_hold, active; billing_cycle_count, trial_days, access_codes_only) left out.
  const { data: resource } = await sb.resources.create(project, { kind: "telegram_group", title: "Readers" });
  const { data: plan } = await sb.plans.create(
    project,
    { name: "Monthly", price: { amount: 900, currency: "EUR" }, billing_cycle: "month", resources: [resource.id, resourceId] },
    { idempotencyKey: "plan-monthly", timeoutMs: 5_000, maxRetries: 1, headers: { "X-Trace": "1" }, signal: AbortSignal.timeout(10_000) },
  );
  const list: PagePromise<components["schemas"]["PlanPage"]> = sb.plans.list(project);
  for await (const each of list) each.status satisfies string;
  const some: components["schemas"]["Plan"][] = await sb.plans.list(project, { per_page: 10 }).toArray({ limit: 20 });
  for await (const page of sb.plans.list(project).pages()) page.meta.current_page satisfies number;
  const gone: void = await sb.plans.delete(project, plan.id, { idempotencyKey: "delete-plan" });
  const minted = await sb.tokens.create({ name: "x", abilities: ["team:view"] });
  minted.token satisfies string;
  await sb.members.ban(project, "m-1", undefined, { signal, timeoutMs: undefined });
  await sb.GET("/v1/tokens", { params: { query: { per_page: 5 } }, timeoutMs: 5, signal: AbortSignal.timeout(1) });
  await sb.POST("/v1/tokens", { body: { name: "x", abilities: [] }, idempotencyKey: "mint-1" });
  try {
    await sb.plans.retrieve(project, plan.id);
  } catch (error) {
    if (error instanceof NotFoundError) error.requestId satisfies string | null;
  }
  return [first, some, gone];
}
`;

const refused = `
import { createClient } from "@subbridge/sdk";

const sb = createClient({ baseUrl: "http://localhost:4000/v1" });
declare const project: string;

export async function mistakes() {
  // @ts-expect-error parms is no option
  await sb.GET("/v1/projects/{project}", { parms: { path: { project } } });
  // @ts-expect-error timeoutMS is no option (timeoutMs is)
  await sb.GET("/v1/teams/current", { timeoutMS: 5 });
  // @ts-expect-error timeoutMS is no option of a resource method either
  await sb.teams.retrieveCurrent({ timeoutMS: 5 });
  // @ts-expect-error a read takes no idempotencyKey
  await sb.plans.retrieve(project, "p", { idempotencyKey: "abc" });
  // @ts-expect-error nor through the path-string client
  await sb.GET("/v1/tokens", { idempotencyKey: "abc" });
  // @ts-expect-error price is required
  await sb.plans.create(project, { name: "Monthly", billing_cycle: "month", resources: [] });
  // @ts-expect-error the body is required
  await sb.tokens.create();
  // @ts-expect-error the plan's id is missing
  await sb.plans.retrieve(project);
  // @ts-expect-error a query of a list has the API's names (per_page, not perPage)
  await sb.projects.list({ perPage: 50 });
  // @ts-expect-error toArray needs a limit
  await sb.projects.list().toArray();
  // @ts-expect-error not a path of the API
  await sb.GET("/v1/nothing-here");
}
`;

describe("sdk resource method types", function () {
  this.timeout(60_000);

  it("compile the issue's program without defaulted fields, and refuse misspelled options, keys on reads and missing fields", () => {
    // As a strict consumer compiles them: exactOptionalPropertyTypes and noUncheckedIndexedAccess.
    assert.deepEqual(snippetErrors([compiles, refused], { stricter: { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true } }), []);
  });

  it("the control: a mistake left without @ts-expect-error is reported", () => {
    const errors = snippetErrors([refused.replace("  // @ts-expect-error timeoutMS is no option (timeoutMs is)\n", "")]);
    assert.equal(errors.length, 1, errors.join("\n"));
    assert.match(errors[0]!, /timeoutMS/);
  });
});
