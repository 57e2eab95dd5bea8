// Files of the repository the server reads once at start: the generated documents, the spec and
// package.json. One anchor, so a module can move without its relative URLs breaking.
import { readFileSync } from "node:fs";

const ROOT = new URL("../", import.meta.url);

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
