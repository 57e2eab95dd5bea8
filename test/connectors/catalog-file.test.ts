// The operator's catalog file: paused packages and announced connectors, checked at start against
// the packages beside it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { connectorsFolder, expectProblems, removeConnectorsFolders, writeFile } from "./connector-folders.ts";

const ANNOUNCED = `
paused: [discord]   # operator's note: waiting on the platform's review
upcoming:
  - key: whatsapp
    name: WhatsApp
    status: roadmap
    category: messaging
    tagline: Sell memberships to WhatsApp communities and channels
    added_at: 2026-10-01
  - key: slack
    name: Slack
    status: in_development
    category: productivity
    tagline: Paid channels in your Slack workspace
    added_at: 2026-09-15
    overview: Invite paying members to **private channels**.
`;

function statuses(dir: string) {
  return loadConnectorRegistry(dir).cards.map((c) => [c.key, c.status, c.installable]);
}

describe("connector catalog file", () => {
  after(removeConnectorsFolders);

  it("is optional: without it every package is available and nothing is announced", () => {
    assert.deepEqual(statuses(connectorsFolder()), [
      ["discord", "available", true],
      ["telegram", "available", true],
    ]);
  });

  it("pauses packages and announces connectors without a package (YAML)", () => {
    const dir = connectorsFolder();
    writeFile(join(dir, "catalog.yaml"), ANNOUNCED);
    assert.deepEqual(statuses(dir), [
      ["discord", "paused", false],
      ["slack", "in_development", false],
      ["telegram", "available", true],
      ["whatsapp", "roadmap", false],
    ]);
    const slack = loadConnectorRegistry(dir).card("slack")!;
    assert.deepEqual(slack, {
      key: "slack",
      name: "Slack",
      status: "in_development",
      installable: false,
      category: "productivity",
      tagline: "Paid channels in your Slack workspace",
      overview: "Invite paying members to **private channels**.",
      icon: "slack",
      version: null,
      vendor: null,
      install: null,
      capabilities: [],
      resource_kinds: [],
      links: {},
      changelog_url: null,
      screenshots: [],
      marketing: null,
      portal_cta: null,
      sign_in_required: null,
      added_at: "2026-09-15",
    });
    assert.equal(loadConnectorRegistry(dir).card("whatsapp")!.overview, null);
    // A paused package keeps its whole card: only the status and the flag change.
    assert.equal(loadConnectorRegistry(dir).card("discord")!.version, "1.3.0");
  });

  it("reads catalog.json and catalog.yml the same way", () => {
    const json = connectorsFolder();
    writeFile(join(json, "catalog.json"), JSON.stringify({ paused: ["telegram"], upcoming: [] }));
    assert.deepEqual(statuses(json), [
      ["discord", "available", true],
      ["telegram", "paused", false],
    ]);
    const yml = connectorsFolder();
    writeFile(join(yml, "catalog.yml"), "paused:\n  - discord\n");
    assert.equal(loadConnectorRegistry(yml).card("discord")!.status, "paused");
  });

  it("decides nothing when empty or holding only comments", () => {
    const dir = connectorsFolder();
    writeFile(join(dir, "catalog.yaml"), "# nothing paused, nothing announced\n");
    assert.deepEqual(statuses(dir), [
      ["discord", "available", true],
      ["telegram", "available", true],
    ]);
  });

  it("refuses two catalog files (which one wins would be a guess)", () => {
    const dir = connectorsFolder();
    writeFile(join(dir, "catalog.yaml"), "paused: []\n");
    writeFile(join(dir, "catalog.json"), "{}");
    expectProblems(dir, [{ file: "catalog.yaml", pointer: "", message: "only one catalog file may exist; found catalog.yaml and catalog.json" }]);
  });

  it("refuses a file that does not parse, naming the line", () => {
    const dir = connectorsFolder();
    writeFile(join(dir, "catalog.yaml"), "paused: [discord]\npaused: [telegram]\n");
    expectProblems(dir, [{ file: "catalog.yaml", pointer: "", message: "the file cannot be parsed: Map keys must be unique at line 2, column 1" }]);
  });

  it("refuses what is not an object, unknown properties and lists of the wrong shape", () => {
    const list = connectorsFolder();
    writeFile(join(list, "catalog.yaml"), "- discord\n");
    expectProblems(list, [{ file: "catalog.yaml", pointer: "", message: "must be an object with the lists paused and upcoming" }]);

    const shapes = connectorsFolder();
    writeFile(join(shapes, "catalog.yaml"), "pause: [discord]\npaused: discord\nupcoming: {key: x}\n");
    expectProblems(shapes, [
      { file: "catalog.yaml", pointer: "/pause", message: "is not a catalog property (allowed: paused, upcoming)" },
      { file: "catalog.yaml", pointer: "/paused", message: "must be a list of connector keys" },
      { file: "catalog.yaml", pointer: "/upcoming", message: "must be a list of announced connectors" },
    ]);
  });

  it("refuses pausing what is not a package here, or the same package twice", () => {
    const dir = connectorsFolder();
    writeFile(join(dir, "catalog.yaml"), "paused: [discrod, telegram, telegram, 3]\n");
    expectProblems(dir, [
      { file: "catalog.yaml", pointer: "/paused/0", message: '"discrod" is not a connector package in this folder (packages: discord, telegram)' },
      { file: "catalog.yaml", pointer: "/paused/2", message: '"telegram" is listed twice' },
      { file: "catalog.yaml", pointer: "/paused/3", message: "must be a connector key (a string)" },
    ]);
  });

  it("lists every problem of an announced connector", () => {
    const dir = connectorsFolder();
    writeFile(
      join(dir, "catalog.yaml"),
      `upcoming:
  - key: Signal
    name: ""
    status: paused
    category: chat
    tagline: ${"z".repeat(81)}
    added_at: 2026-02-30
    icon: signal
  - name: Matrix
  - just a string
`,
    );
    expectProblems(dir, [
      {
        file: "catalog.yaml",
        pointer: "/upcoming/0/key",
        message: 'must start with a lowercase letter and contain only a-z, 0-9, _ and - (it is "Signal")',
      },
      { file: "catalog.yaml", pointer: "/upcoming/0/name", message: "must not be empty" },
      {
        file: "catalog.yaml",
        pointer: "/upcoming/0/status",
        message: /^must be roadmap or in_development \(it is "paused"\); a connector with a package is available unless listed under paused$/,
      },
      {
        file: "catalog.yaml",
        pointer: "/upcoming/0/category",
        message: 'must be one of messaging, community, payments, productivity (it is "chat")',
      },
      { file: "catalog.yaml", pointer: "/upcoming/0/tagline", message: "must be 1 to 80 characters (it has 81)" },
      { file: "catalog.yaml", pointer: "/upcoming/0/added_at", message: 'must be a date written YYYY-MM-DD, like 2026-10-01 (it is "2026-02-30")' },
      { file: "catalog.yaml", pointer: "/upcoming/0/icon", message: /^is not a property of an upcoming connector/ },
      { file: "catalog.yaml", pointer: "/upcoming/1/key", message: "is required" },
      { file: "catalog.yaml", pointer: "/upcoming/1/status", message: "is required" },
      { file: "catalog.yaml", pointer: "/upcoming/1/category", message: "is required" },
      { file: "catalog.yaml", pointer: "/upcoming/1/tagline", message: "is required" },
      { file: "catalog.yaml", pointer: "/upcoming/1/added_at", message: "is required" },
      { file: "catalog.yaml", pointer: "/upcoming/2", message: /^must be an object with key, name, status/ },
    ]);
  });

  it("refuses announcing a connector that has a package, or announcing one twice", () => {
    const dir = connectorsFolder();
    const entry = (key: string) => `  - {key: ${key}, name: X, status: roadmap, category: messaging, tagline: Soon, added_at: 2026-10-01}\n`;
    writeFile(join(dir, "catalog.yaml"), `upcoming:\n${entry("telegram")}${entry("kick")}${entry("kick")}`);
    expectProblems(dir, [
      { file: "catalog.yaml", pointer: "/upcoming/0/key", message: '"telegram" has a connector package, which is its card; remove this entry' },
      { file: "catalog.yaml", pointer: "/upcoming/2/key", message: '"kick" is already listed at /upcoming/1' },
    ]);
  });

  it("reports a broken package and a broken catalog together, without blaming the catalog for the package", () => {
    const dir = connectorsFolder({ telegram: "telegram", "discord-bot": "discord" });
    writeFile(join(dir, "catalog.yaml"), "paused: [discord-bot, nope]\n");
    expectProblems(dir, [
      { file: "discord-bot/connector.json", pointer: "/key", message: /differs from the package's folder name/ },
      { file: "catalog.yaml", pointer: "/paused/1", message: /^"nope" is not a connector package in this folder/ },
    ]);
  });
});
