// npm run spec:diff -- <base-ref> [<head-ref>] [--json]
// npm run spec:changelog -- <base-ref> [<head-ref>] [--release 3.1.0] [--date 2026-11-21]
//
// Compares the REST API description at <base-ref> (its committed generated/openapi.json) with the
// working tree's spec/ (or with <head-ref>), classifies every change breaking, non-breaking or
// documentation-only by the Versioning rules (scripts/spec/classify-change.ts) and prints a report.
// Exit status: 0 without breaking changes, 1 with at least one, 2 when the comparison could not be
// made (unknown ref, no description at the ref, invalid spec). --changelog prints a Markdown entry
// instead and exits 0 whatever it contains. Read-only: never changes the working tree or the index.
import { parseArgs } from "node:util";
import { formatChangelog } from "./spec/api-changelog.ts";
import { buildReport, formatReport } from "./spec/change-report.ts";
import { compareSpecs } from "./spec/spec-changes.ts";
import { loadAcknowledgments } from "./spec/acknowledged-changes.ts";
import { repositoryRoot, specAtRef, specInWorkingTree, SpecSourceError } from "./spec/spec-source.ts";

const USAGE = `usage: spec-diff <base-ref> [<head-ref>] [--json | --changelog [--release <x.y.z>] [--date <YYYY-MM-DD>]]
  <base-ref>   git ref whose generated/openapi.json is the "before" document
  <head-ref>   git ref for the "after" document (default: the working tree's spec/)
  --json       print the report as JSON
  --changelog  print a Markdown changelog entry (release from package.json, date from
               --date, SPEC_CHANGELOG_DATE or today in UTC) and exit 0`;

function fail(message: string): never {
  process.stderr.write(`spec-diff: ${message}\n`);
  process.exit(2);
}

function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        json: { type: "boolean", default: false },
        changelog: { type: "boolean", default: false },
        release: { type: "string" },
        date: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    return;
  }
  if (positionals.length < 1 || positionals.length > 2) fail(`expected a base ref and an optional head ref\n${USAGE}`);
  if (values.json && values.changelog) fail("--json and --changelog cannot be combined");
  const date = values.date ?? process.env.SPEC_CHANGELOG_DATE ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) fail(`--date must be YYYY-MM-DD, got ${date}`);

  let before, after, acknowledgments;
  try {
    const root = repositoryRoot(process.cwd());
    acknowledgments = loadAcknowledgments(root);
    before = specAtRef(root, positionals[0]!);
    after = positionals[1] ? specAtRef(root, positionals[1]) : specInWorkingTree(root);
  } catch (err) {
    fail(err instanceof SpecSourceError ? err.message : `could not load the API description: ${(err as Error).message}`);
  }

  let changes;
  try {
    changes = compareSpecs(before.document, after.document);
  } catch (err) {
    fail(`api-smart-diff could not compare ${before.label} with ${after.label}: ${(err as Error).message}`);
  }
  const report = buildReport(before.label, after.label, changes, [...before.notes, ...after.notes], acknowledgments);
  if (values.changelog) {
    for (const note of report.notes) process.stderr.write(`spec-diff: note: ${note}\n`);
    const release = values.release ?? after.release ?? (after.document.info?.version as string | undefined) ?? "unreleased";
    process.stdout.write(formatChangelog(report.changes, { release, date }));
    return;
  }
  process.stdout.write(values.json ? JSON.stringify(report, null, 2) + "\n" : formatReport(report));
  process.exitCode = report.breaking > 0 ? 1 : 0;
}

main();
