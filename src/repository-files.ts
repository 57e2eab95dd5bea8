// Files of the repository the server reads once at start: the generated documents, the spec and
// package.json. One anchor, so a module can move without its relative URLs breaking: the nearest
// folder above this module that holds package.json (the repository, whether this runs from src/
// through tsx or from the compiled dist/src/).
import { existsSync, readFileSync } from "node:fs";

function repositoryRoot(): URL {
  for (let dir = new URL("../", import.meta.url); ; dir = new URL("../", dir)) {
    if (existsSync(new URL("package.json", dir))) return dir;
    if (dir.pathname === "/") throw new Error(`no package.json above ${import.meta.url}`);
  }
}

const ROOT = repositoryRoot();

export function repositoryFile(path: string): URL {
  return new URL(path, ROOT);
}

export function readRepositoryText(path: string): string {
  return readFileSync(repositoryFile(path), "utf8");
}

/** A JSON file of generated/, parsed. */
export function readGeneratedJson<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readRepositoryText(`generated/${name}`)) as T;
}
