// Classification of spec changes by the Versioning rules: what breaks /v1 clients and what is
// additive, on small before/after documents built in memory.
import assert from "node:assert/strict";
import { formatChangelog } from "../../scripts/spec/api-changelog.ts";
import { buildReport, changeSentence, formatReport } from "../../scripts/spec/change-report.ts";
import { compareSpecs, type SpecChange } from "../../scripts/spec/spec-changes.ts";
import { tinySpec, tinySpecWith } from "./tiny-spec.ts";

type Json = Record<string, any>;

const sentence = (c: SpecChange) =>
  changeSentence({
    severity: c.severity,
    kind: c.kind,
    operations: c.operation ? [c.operation] : [],
    where: c.where,
    statuses: c.status ? [c.status] : [],
    what: c.what,
  });

/** The changes `edit` makes to the tiny spec, as "severity kind: sentence". */
function changesAfter(edit: (doc: Json) => void): string[] {
  return compareSpecs(tinySpec(), tinySpecWith(edit)).map((c) => `${c.severity} ${c.kind}: ${sentence(c)}`);
}

function onlyChange(edit: (doc: Json) => void): SpecChange {
  const changes = compareSpecs(tinySpec(), tinySpecWith(edit));
  assert.equal(changes.length, 1, `expected one change, got:\n${changes.map(sentence).join("\n")}`);
  return changes[0]!;
}

const team = (doc: Json) => doc.components.schemas.Team;
const tokenCreate = (doc: Json) => doc.components.schemas.TokenCreate;

describe("spec diff classification", () => {
  it("finds nothing between a document and itself", () => {
    assert.deepEqual(
      changesAfter(() => {}),
      [],
    );
  });

  it("removing a required response field is breaking", () => {
    const changes = changesAfter((doc) => {
      delete team(doc).properties.personal;
      team(doc).required = team(doc).required.filter((f: string) => f !== "personal");
    });
    assert.deepEqual(changes, ["breaking removed: GET /v1/teams/current (get_current_team): response 200: field `data.personal` removed"]);
    const report = buildReport(
      "a",
      "b",
      compareSpecs(
        tinySpec(),
        tinySpecWith((doc) => delete team(doc).properties.personal),
      ),
    );
    assert.equal(report.breaking, 1);
  });

  it("adding an optional response field is non-breaking", () => {
    assert.deepEqual(
      changesAfter((doc) => (team(doc).properties.slug = { type: "string" })),
      ["non-breaking added: GET /v1/teams/current (get_current_team): response 200: field `data.slug` added"],
    );
  });

  it("adding a new operation is non-breaking", () => {
    const change = onlyChange((doc) => {
      doc.paths["/v1/teams"] = { get: { ...structuredClone(doc.paths["/v1/teams/current"].get), operationId: "list_teams" } };
    });
    assert.equal(change.severity, "non-breaking");
    assert.equal(change.kind, "added");
    assert.deepEqual(change.operation, { method: "GET", path: "/v1/teams", operationId: "list_teams" });
    assert.equal(change.what, "operation added");
  });

  it("adding a required request field is breaking", () => {
    assert.deepEqual(
      changesAfter((doc) => {
        tokenCreate(doc).properties.note = { type: "string" };
        tokenCreate(doc).required.push("note");
      }),
      ["breaking added: POST /v1/tokens (create_token): request body: field `note` added (required)"],
    );
  });

  it("making an optional request field required is breaking", () => {
    assert.deepEqual(
      changesAfter((doc) => tokenCreate(doc).required.push("expires_at")),
      ["breaking changed: POST /v1/tokens (create_token): request body: field `expires_at` is now required"],
    );
  });

  it("adding an optional request field is non-breaking", () => {
    assert.equal(onlyChange((doc) => (tokenCreate(doc).properties.note = { type: "string" })).severity, "non-breaking");
  });

  it("removing an operation is breaking", () => {
    const change = onlyChange((doc) => delete doc.paths["/v1/tokens"]);
    assert.equal(change.severity, "breaking");
    assert.equal(change.kind, "removed");
    assert.equal(sentence(change), "POST /v1/tokens (create_token): operation removed");
  });

  it("adding an ErrorCode value is non-breaking, reported once across operations and statuses", () => {
    const changes = compareSpecs(
      tinySpec(),
      tinySpecWith((doc) => doc.components.schemas.ErrorCode.enum.push("RATE_LIMITED")),
    );
    assert.ok(changes.length > 0);
    assert.ok(changes.every((c) => c.severity === "non-breaking" && c.kind === "added"));
    const report = buildReport("a", "b", changes);
    assert.equal(report.changes.length, 1);
    assert.equal(
      changeSentence(report.changes[0]!),
      "GET /v1/teams/current (get_current_team), POST /v1/tokens (create_token): error responses (404, 422): value `RATE_LIMITED` added to field `error.code`",
    );
  });

  it("removing an ErrorCode value is breaking", () => {
    const changes = compareSpecs(
      tinySpec(),
      tinySpecWith((doc) => doc.components.schemas.ErrorCode.enum.pop()),
    );
    assert.ok(changes.length > 0 && changes.every((c) => c.severity === "breaking"));
  });

  it("a description change is documentation only", () => {
    assert.deepEqual(
      changesAfter((doc) => (doc.paths["/v1/tokens"].post.description = "Mints a token for the caller.")),
      ["documentation changed: POST /v1/tokens (create_token): description changed"],
    );
    assert.equal(onlyChange((doc) => (team(doc).properties.name.description = "What the team is called.")).severity, "documentation");
  });

  it("an example change is documentation only", () => {
    const change = onlyChange((doc) => (doc.paths["/v1/tokens"].post.requestBody.content["application/json"].example = { name: "CI" }));
    assert.equal(change.severity, "documentation");
    assert.equal(change.library, "unclassified");
    assert.ok(change.rule);
  });

  it("a response field becoming optional is breaking", () => {
    assert.deepEqual(
      changesAfter((doc) => (team(doc).required = team(doc).required.filter((f: string) => f !== "name"))),
      ["breaking changed: GET /v1/teams/current (get_current_team): response 200: field `data.name` is no longer required"],
    );
  });

  it("a response field becoming nullable is breaking (the library says otherwise)", () => {
    const change = onlyChange((doc) => (team(doc).properties.name.type = ["string", "null"]));
    assert.equal(change.severity, "breaking");
    assert.equal(change.library, "non-breaking");
    assert.match(change.rule ?? "", /nullable/);
    assert.equal(change.what, "type of field `data.name` changed from string to null | string");
  });

  it("a response field no longer nullable is non-breaking; a request field accepting null is non-breaking", () => {
    assert.deepEqual(
      changesAfter((doc) => (team(doc).properties.archived_at.type = "string")).map((c) => c.split(":")[0]),
      ["non-breaking changed"],
    );
    assert.equal(onlyChange((doc) => (tokenCreate(doc).properties.name.type = ["string", "null"])).severity, "non-breaking");
  });

  it("a response field changing type is breaking; a request field narrowing its type is breaking", () => {
    assert.equal(onlyChange((doc) => (team(doc).properties.personal.type = "string")).severity, "breaking");
    assert.equal(onlyChange((doc) => (tokenCreate(doc).properties.expires_at.type = "integer")).severity, "breaking");
  });

  it("the order of a type array is not a change", () => {
    assert.deepEqual(
      changesAfter((doc) => (team(doc).properties.archived_at.type = ["null", "string"])),
      [],
    );
  });

  it("a new value in a response enum is additive; removing one is breaking", () => {
    const added = onlyChange((doc) => team(doc).properties.kind.enum.push("organisation"));
    assert.equal(added.severity, "non-breaking");
    assert.equal(added.what, "value `organisation` added to field `data.kind`");
    assert.equal(onlyChange((doc) => team(doc).properties.kind.enum.pop()).severity, "breaking");
  });

  it("removing a request field is breaking (bodies refuse unknown fields)", () => {
    const change = onlyChange((doc) => delete tokenCreate(doc).properties.expires_at);
    assert.equal(change.severity, "breaking");
    assert.equal(change.library, "non-breaking");
  });

  it("tightening a request constraint is breaking", () => {
    assert.equal(onlyChange((doc) => (tokenCreate(doc).properties.name.maxLength = 100)).severity, "breaking");
  });

  it("changing the status of the success response is breaking", () => {
    const changes = changesAfter((doc) => {
      const responses = doc.paths["/v1/tokens"].post.responses;
      responses["200"] = responses["201"];
      delete responses["201"];
    });
    assert.ok(changes.includes("breaking removed: POST /v1/tokens (create_token): response 201 removed"), changes.join("\n"));
  });

  it("auth changes are breaking: x-ability, security, operationId", () => {
    const ability = onlyChange((doc) => (doc.paths["/v1/tokens"].post["x-ability"] = "token:update"));
    assert.equal(ability.severity, "breaking");
    assert.equal(ability.library, "annotation");
    assert.equal(onlyChange((doc) => (doc.paths["/v1/tokens"].post.security = [])).severity, "breaking");
    assert.equal(onlyChange((doc) => (doc.components.securitySchemes.bearer.scheme = "basic")).severity, "breaking");
    assert.equal(onlyChange((doc) => (doc.paths["/v1/tokens"].post.operationId = "mint_token")).severity, "breaking");
  });

  it("query parameters: a new optional one is additive, a new required one or a removed one is breaking", () => {
    const param = (required: boolean) => ({ name: "include", in: "query", required, description: "x", schema: { type: "string" } });
    assert.equal(onlyChange((doc) => (doc.paths["/v1/teams/current"].get.parameters = [param(false)])).severity, "non-breaking");
    assert.equal(onlyChange((doc) => (doc.paths["/v1/teams/current"].get.parameters = [param(true)])).severity, "breaking");
    const before = tinySpecWith((doc) => (doc.paths["/v1/teams/current"].get.parameters = [param(false)]));
    const [removed] = compareSpecs(before, tinySpec());
    assert.equal(removed?.severity, "breaking");
    assert.equal(removed && sentence(removed), "GET /v1/teams/current (get_current_team): query parameter `include`: removed");
  });

  it("a new required request body is breaking; removing a response header is breaking", () => {
    const body = (required: boolean) => ({ required, content: { "application/json": { schema: { type: "object" }, example: {} } } });
    assert.equal(onlyChange((doc) => (doc.paths["/v1/teams/current"].get.requestBody = body(true))).severity, "breaking");
    assert.equal(onlyChange((doc) => (doc.paths["/v1/teams/current"].get.requestBody = body(false))).severity, "non-breaking");
    const withHeader = tinySpecWith(
      (doc) => (doc.paths["/v1/teams/current"].get.responses["200"].headers = { "X-Request-Id": { schema: { type: "string" } } }),
    );
    const [removed] = compareSpecs(withHeader, tinySpec());
    assert.equal(removed?.severity, "breaking");
    assert.equal(removed && sentence(removed), "GET /v1/teams/current (get_current_team): response 200: header `X-Request-Id` removed");
  });

  it("deprecating an operation is non-breaking and listed as a deprecation", () => {
    const change = onlyChange((doc) => (doc.paths["/v1/tokens"].post.deprecated = true));
    assert.equal(change.severity, "non-breaking");
    assert.equal(change.kind, "deprecated");
  });

  it("webhooks: a new payload field is additive, a removed event is breaking", () => {
    const payload = (doc: Json) => doc.webhooks["team.member.joined"].post.requestBody.content["application/json"].schema;
    const added = onlyChange((doc) => (payload(doc).properties.team_id = { type: "string" }));
    assert.equal(added.severity, "non-breaking");
    assert.equal(sentence(added), "webhook team.member.joined: payload: field `team_id` added");
    const removed = onlyChange((doc) => delete doc.webhooks["team.member.joined"]);
    assert.equal(removed.severity, "breaking");
    assert.equal(sentence(removed), "webhook team.member.joined: event removed");
  });

  it("anything the library leaves unclassified fails closed as breaking", () => {
    const change = onlyChange((doc) => (doc["x-release-channel"] = "beta"));
    assert.equal(change.library, "unclassified");
    assert.equal(change.severity, "breaking");
    assert.match(change.rule ?? "", /unclassified/);
  });
});

describe("spec diff report and changelog", () => {
  const changes = () =>
    compareSpecs(
      tinySpec(),
      tinySpecWith((doc) => {
        delete team(doc).properties.personal;
        team(doc).properties.slug = { type: "string" };
        doc.paths["/v1/tokens"].post.deprecated = true;
        doc.paths["/v1/tokens"].post.summary = "Mint a personal access token";
        doc.components.schemas.ErrorCode.enum.push("RATE_LIMITED");
      }),
    );

  it("groups the report by breaking, non-breaking and documentation only", () => {
    const text = formatReport(buildReport("HEAD~1", "working tree", changes()));
    const order = ["Breaking changes", "Non-breaking changes", "Documentation only", "1 breaking change(s)"].map((h) => text.indexOf(h));
    assert.ok(
      order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!)),
      text,
    );
    assert.match(text, /field `data\.personal` removed/);
  });

  it("writes a Markdown changelog entry with Added / Changed / Deprecated / Removed / Breaking", () => {
    const report = buildReport("a", "b", changes());
    assert.equal(
      formatChangelog(report.changes, { release: "1.3.0", date: "2026-11-21" }),
      [
        "## [1.3.0] - 2026-11-21",
        "",
        "### Added",
        "",
        "- `GET /v1/teams/current` (`get_current_team`), `POST /v1/tokens` (`create_token`): error responses (404, 422): value `RATE_LIMITED` added to field `error.code`.",
        "- `GET /v1/teams/current` (`get_current_team`): response 200: field `data.slug` added.",
        "",
        "### Changed",
        "",
        "- Documentation (descriptions, summaries or examples) updated for `POST /v1/tokens` (`create_token`).",
        "",
        "### Deprecated",
        "",
        "- `POST /v1/tokens` (`create_token`): operation deprecated.",
        "",
        "### Breaking",
        "",
        "- `GET /v1/teams/current` (`get_current_team`): response 200: field `data.personal` removed.",
        "",
      ].join("\n"),
    );
  });

  it("says so when nothing changed", () => {
    assert.match(formatChangelog([], { release: "1.2.3", date: "2026-11-21" }), /No changes to the REST API\./);
    assert.match(formatReport(buildReport("a", "b", [])), /No changes to the REST API\./);
  });

  it("lets a reviewed acknowledgment settle exactly the breaking change it names, and reports unused ones", () => {
    const changes = compareSpecs(
      tinySpec(),
      tinySpecWith((doc) => delete team(doc).properties.personal),
    );
    const sentence = "GET /v1/teams/current (get_current_team): response 200: field `data.personal` removed";
    const settled = buildReport("a", "b", changes, [], [{ change: sentence, reason: "reviewed" }]);
    assert.equal(settled.breaking, 0);
    assert.equal(settled.acknowledged, 1);
    assert.match(formatReport(settled), /acknowledged: reviewed/);
    const other = buildReport("a", "b", changes, [], [{ change: `${sentence} (typo)`, reason: "reviewed" }]);
    assert.equal(other.breaking, 1, "a near miss settles nothing");
    assert.ok(other.notes.some((n) => n.includes("matches no change")));
  });
});
