// Where the two documents of a spec diff come from, without touching the working tree or the
// index: a git ref's committed generated/openapi.json (`git show`; CI keeps it current with
// `npm run codegen:check`), or the working tree's spec/ bundled in-process by codegen.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle } from "../../codegen/bundle.ts";
import { loadAbilityCatalog, loadErrorCatalog, loadOpenApiFragments } from "../../codegen/sources.ts";

type Json = Record<string, any>;

export const BUNDLED_SPEC = "generated/openapi.json";

export class SpecSourceError extends Error {}

export interface LoadedSpec {
  /** What the document is, for the report: "HEAD (1a2b3c4)", "working tree". */
  label: string;
  document: Json;
  /** The release number in that tree's package.json, when there is one. */
  release?: string;
  /** Things the reader should know (stale generated file, fallback used). */
  notes: string[];
}

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
}

function tryGit(cwd: string, args: string[]): string | null {
  try {
    return git(cwd, args);
  } catch {
    return null;
  }
}

export function repositoryRoot(cwd: string): string {
  const top = tryGit(cwd, ["rev-parse", "--show-toplevel"]);
  if (top === null) throw new SpecSourceError(`${cwd} is not inside a git repository`);
  return top.trim();
}

/**
 * spec/ bundled as codegen bundles it. Another ref's spec is compared, not judged (it may predate a
 * rule codegen enforces now); the working tree's is judged, so a spec codegen refuses is refused here too.
 */
function bundleSpecDirectory(specDir: string, { authoringRules }: { authoringRules: boolean }): Json {
  const load = () =>
    [
      loadOpenApiFragments(join(specDir, "openapi")),
      loadAbilityCatalog(join(specDir, "abilities.yaml")),
      loadErrorCatalog(join(specDir, "errors.yaml")),
    ] as const;
  if (!authoringRules) return bundle(...load(), { authoringRules: false });
  try {
    return bundle(...load());
  } catch (err) {
    throw new SpecSourceError(`codegen refuses spec/ as it is now, so there is nothing to compare: ${(err as Error).message}`);
  }
}

function releaseOf(packageJson: string | null): string | undefined {
  if (packageJson === null) return undefined;
  try {
    const version = (JSON.parse(packageJson) as { version?: unknown }).version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The bundled document as committed at `ref`. */
export function specAtRef(root: string, ref: string): LoadedSpec {
  const commit = tryGit(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])?.trim();
  if (!commit) throw new SpecSourceError(`unknown git ref ${JSON.stringify(ref)} (fetch it first, for example: git fetch origin main)`);
  const label = ref.toLowerCase() === commit ? commit.slice(0, 12) : `${ref} (${commit.slice(0, 12)})`;
  const release = releaseOf(tryGit(root, ["show", `${commit}:package.json`]));
  const committed = tryGit(root, ["show", `${commit}:${BUNDLED_SPEC}`]);
  if (committed !== null) {
    try {
      return { label, document: JSON.parse(committed) as Json, release, notes: [] };
    } catch (err) {
      throw new SpecSourceError(`${BUNDLED_SPEC} at ${label} is not JSON: ${(err as Error).message}`);
    }
  }
  if (tryGit(root, ["cat-file", "-e", `${commit}:spec/openapi/openapi.yaml`]) === null) {
    throw new SpecSourceError(`${label} has neither ${BUNDLED_SPEC} nor spec/openapi/openapi.yaml: there is no API description to compare with`);
  }
  // Older trees without a committed bundle: bundle that tree's spec/ with today's codegen.
  const scratch = mkdtempSync(join(tmpdir(), "spec-diff-"));
  try {
    execFileSync("sh", ["-c", `git archive "$1" spec | tar -x -C "$2"`, "sh", commit, scratch], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    const document = bundleSpecDirectory(join(scratch, "spec"), { authoringRules: false });
    return { label, document, release, notes: [`${label} has no ${BUNDLED_SPEC}; bundled its spec/ with the current codegen instead`] };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The working tree: its spec/ bundled in-process (refused, SpecSourceError, when codegen would refuse
 * it), or its generated/openapi.json when it has no spec/. `fresh` says whether generated/openapi.json is what spec/ produces.
 */
export function specInWorkingTree(root: string): LoadedSpec & { fresh: boolean } {
  const label = "working tree";
  const packagePath = join(root, "package.json");
  const release = releaseOf(existsSync(packagePath) ? readFileSync(packagePath, "utf8") : null);
  const generatedPath = join(root, BUNDLED_SPEC);
  const generated = existsSync(generatedPath) ? readFileSync(generatedPath, "utf8") : null;
  if (existsSync(join(root, "spec", "openapi", "openapi.yaml"))) {
    const document = bundleSpecDirectory(join(root, "spec"), { authoringRules: true });
    const fresh = generated === JSON.stringify(document, null, 2) + "\n";
    const notes = fresh ? [] : [`${BUNDLED_SPEC} is ${generated === null ? "missing" : "stale"} (compared spec/ as it is now); run npm run codegen`];
    return { label, document, release, notes, fresh };
  }
  if (generated === null) throw new SpecSourceError(`${root} has neither spec/openapi/openapi.yaml nor ${BUNDLED_SPEC}`);
  return { label, document: JSON.parse(generated) as Json, release, notes: [], fresh: true };
}
