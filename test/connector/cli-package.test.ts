// subbridge-connector validate on a package folder (issue 47): it runs the loader the server runs at
// start (@subbridge/sdk/connector/package), so it refuses exactly what the server would refuse,
// each problem as <file>: <JSON pointer>: <problem> — <fix>.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../sdk/src/connector/cli.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { ConnectorLoadError } from "../../src/modules/connectors/problems.ts";
import { ROOT } from "./manifest-files.ts";

function runInProcess(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = runCli(args, { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readFile: (path) => readFileSync(path, "utf8") });
  return { status, stdout: out.join("\n"), stderr: err.join("\n") };
}

const editJson = (file: string, edit: (json: any) => void) => {
  const json = JSON.parse(readFileSync(file, "utf8"));
  edit(json);
  writeFileSync(file, JSON.stringify(json, null, 2));
};

/** Ways a package breaks that the schema alone lets through, each applied to a copy of the telegram package. */
const BREAKAGES: Record<string, (pkg: string) => void> = {
  "an unknown rule": (pkg) => editJson(join(pkg, "connector.json"), (m) => (m.install.fields[0].rules = ["required", "maxx:5"])),
  "an invalid regex": (pkg) => editJson(join(pkg, "connector.json"), (m) => (m.install.fields[0].rules = ["regex:/[/"])),
  "a rule with no number": (pkg) => editJson(join(pkg, "connector.json"), (m) => (m.install.settings_fields[0].rules = ["max:"])),
  "a repeated resource kind": (pkg) => editJson(join(pkg, "connector.json"), (m) => m.resource_kinds.push({ ...m.resource_kinds[1] })),
  "an option the in: rule refuses": (pkg) => editJson(join(pkg, "connector.json"), (m) => (m.install.settings_fields[1].options.it = "English")),
  "an in: value no option offers": (pkg) =>
    editJson(join(pkg, "connector.json"), (m) => (m.install.settings_fields[1].rules = ["in:en,de,es,fr,pt,it"])),
  "no lang/en.json": (pkg) => rmSync(join(pkg, "lang/en.json")),
  "an untranslated string": (pkg) => editJson(join(pkg, "connector.json"), (m) => (m.install.fields[0].label = "Token of the bot")),
  "a folder not named after the key": (pkg) => editJson(join(pkg, "connector.json"), (m) => (m.key = "telegram_two")),
};

describe("subbridge-connector validate <package>", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "subbridge-cli-package-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const telegramCopy = () => {
    const pkg = join(dir, "telegram");
    cpSync(join(ROOT, "connectors/telegram"), pkg, { recursive: true });
    return pkg;
  };

  it("accepts the shipped packages, by folder and by connector.json", () => {
    for (const key of ["telegram", "discord"]) {
      for (const path of [join(ROOT, "connectors", key), join(ROOT, "connectors", key, "connector.json")]) {
        const { status, stdout } = runInProcess("validate", path);
        assert.equal(status, 0, stdout);
        assert.match(stdout, new RegExp(`is valid and loads as the server loads it \\(key ${key}, version `));
      }
    }
  });

  for (const [name, breakPackage] of Object.entries(BREAKAGES)) {
    it(`refuses ${name}, with the same problems the server's start names`, () => {
      const pkg = telegramCopy();
      breakPackage(pkg);
      let serverProblems: { file: string; pointer: string; message: string }[] = [];
      try {
        loadConnectorRegistry(dir);
        assert.fail("the server loads it");
      } catch (err) {
        if (!(err instanceof ConnectorLoadError)) throw err;
        serverProblems = err.problems.map(({ file, pointer, message }) => ({ file, pointer, message }));
      }
      const cli = runInProcess("validate", pkg, "--json");
      assert.equal(cli.status, 1, cli.stdout);
      const report = JSON.parse(cli.stdout) as { valid: boolean; errors: { file: string; pointer: string; message: string }[] };
      assert.equal(report.valid, false);
      assert.deepEqual(
        report.errors.map(({ file, pointer, message }) => ({ file, pointer, message })),
        serverProblems,
      );
    });
  }

  it("prints <file>: <pointer>: <problem> — <fix>, then the count", () => {
    const pkg = telegramCopy();
    BREAKAGES["an unknown rule"]!(pkg);
    BREAKAGES["an option the in: rule refuses"]!(pkg);
    editJson(join(pkg, "lang/en.json"), (en) => delete en["Bot token"]);
    const { status, stdout } = runInProcess("validate", join(pkg, "connector.json"));
    assert.equal(status, 1, stdout);
    const manifest = join(pkg, "connector.json");
    assert.deepEqual(stdout.split("\n"), [
      `✖ ${manifest}: /install/fields/0/rules/1: the rule "maxx:5" is not part of the rule language — did you mean max? use one of required, nullable, string, boolean, max, min, in, regex, url`,
      `✖ ${manifest}: /install/settings_fields/1/options/it: the option "it" is not allowed by the rule "in:en,de,es,fr,pt", so choosing it is refused — add it to the in: rule or remove the option`,
      `✖ ${manifest}: /install/fields/0/label: "Bot token" has no translation in lang/en.json — add "Bot token" as a key of lang/en.json`,
      "",
      `the package ${pkg} would be refused by the server: 3 problems.`,
    ]);
  });

  it("names the missing lang/en.json and how to create it", () => {
    const pkg = telegramCopy();
    BREAKAGES["no lang/en.json"]!(pkg);
    const { status, stdout } = runInProcess("validate", pkg);
    assert.equal(status, 1);
    assert.match(
      stdout,
      /^✖ .*telegram\/lang\/en\.json: the file is missing; every string a creator reads is translated here — create lang\/en\.json /m,
    );
  });
});
