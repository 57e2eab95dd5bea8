// The guard of the tenancy matrix: checkFixtures finds every way the fixture files can disagree
// with the operation table, so an operation cannot ship without its tenancy probe.
import assert from "node:assert/strict";
import { operationList, type OperationSpec } from "../../generated/operations.ts";
import { areaOf, checkFixtures, discoverFixtureSources, expectedOperations, type FixtureSource } from "./loader.ts";

const probe = { probe: async () => {} };
const pathFixture = { create: async () => ({ id: "1" }), outside: null, exists: async () => true };

/** A made-up operation of the table's shape. */
function operation(id: string, overrides: Partial<OperationSpec> = {}): OperationSpec {
  return { ...operationList.find((op) => !op.public && op.pathParams.length === 0)!, id, ...overrides } as unknown as OperationSpec;
}

describe("tenancy fixture loader", () => {
  const listWidgets = operation("list_widgets", { tags: ["Widget Boxes"], path: "/v1/widgets" });
  const deleteWidget = operation("delete_widget", { tags: ["Widget Boxes"], method: "DELETE", path: "/v1/widgets/{widget}", pathParams: ["widget"] });
  const ping = operation("ping_widgets", { tags: ["System"], public: true, ability: null });
  const all = [listWidgets, deleteWidget, ping];
  const expected = [listWidgets, deleteWidget];
  const file = "test/modules/widget-boxes/tenancy-fixtures.ts";

  it("names areas as the MCP toolsets do", () => {
    assert.equal(areaOf(listWidgets), "widget-boxes");
    assert.equal(areaOf(expectedOperations.find((op) => op.id === "delete_token")!), "tokens");
  });

  it("accepts one fixture of the right kind per operation", () => {
    const set = checkFixtures(expected, [{ file, area: "widget-boxes", fixtures: { list_widgets: probe, delete_widget: pathFixture } }], all);
    assert.deepEqual(set.problems, []);
    assert.deepEqual([...set.byOperation.keys()], ["list_widgets", "delete_widget"]);
  });

  it("names an operation without a fixture, and where its fixture goes", () => {
    const { problems, blocking } = checkFixtures(expected, [{ file, area: "widget-boxes", fixtures: { list_widgets: probe } }], all);
    assert.deepEqual([...blocking.values()], [problems], "the operation's own tests fail with the same message");
    assert.deepEqual(problems, [
      "delete_widget (DELETE /v1/widgets/{widget}) has no tenancy fixture: add a path fixture (create, outside, exists) for {widget} to test/modules/widget-boxes/tenancy-fixtures.ts",
    ]);
  });

  it("refuses an operation claimed by two files, an unknown id, a public operation, another area's operation and a missing export", () => {
    const sources: FixtureSource[] = [
      { file, area: "widget-boxes", fixtures: { list_widgets: probe, delete_widget: pathFixture, delete_widgte: pathFixture, ping_widgets: probe } },
      { file: "test/modules/tokens/tenancy-fixtures.ts", area: "tokens", fixtures: { list_widgets: probe } },
      { file: "test/modules/empty/tenancy-fixtures.ts", area: "empty", fixtures: undefined },
    ];
    const set = checkFixtures(expected, sources, all);
    assert.deepEqual([...set.blocking.keys()], ["list_widgets"], "an operation claimed twice runs no fixture");
    assert.deepEqual([...set.byOperation.keys()], ["delete_widget"]);
    assert.deepEqual(set.problems, [
      `${file}: delete_widgte names no operation of generated/operations.ts`,
      `${file}: ping_widgets is public (no credential, so no tenancy): remove its fixture`,
      'test/modules/tokens/tenancy-fixtures.ts: list_widgets belongs to the area widget-boxes (first tag "Widget Boxes"): move its fixture to test/modules/widget-boxes/tenancy-fixtures.ts',
      `list_widgets is claimed twice: by ${file} and by test/modules/tokens/tenancy-fixtures.ts`,
      "test/modules/empty/tenancy-fixtures.ts: exports no `tenancyFixtures` record (export const tenancyFixtures: AreaFixtures = {...})",
    ]);
  });

  it("refuses a probe for an operation with path ids, and a path fixture for one without", () => {
    const { problems, byOperation } = checkFixtures(
      expected,
      [{ file, area: "widget-boxes", fixtures: { list_widgets: pathFixture, delete_widget: probe } }],
      all,
    );
    assert.deepEqual(problems, [
      `${file}: list_widgets has no path parameter: its fixture needs a probe`,
      `${file}: delete_widget has path parameters (widget): its fixture needs create, outside and exists`,
    ]);
    assert.equal(byOperation.size, 0, "a fixture of the wrong kind is not run");
  });

  it("finds the fixture file of every area in test/modules/ without a shared list", async () => {
    const found = (await discoverFixtureSources()).map((s) => s.file);
    for (const area of new Set(expectedOperations.map(areaOf))) assert.ok(found.includes(`test/modules/${area}/tenancy-fixtures.ts`), area);
  });
});
