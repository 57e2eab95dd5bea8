#!/usr/bin/env node
// npm ci's `prepare` and `npm run build:dashboard`: builds the SDK (the dashboard imports it as
// published, from sdk/dist) and then the dashboard into dashboard/dist, which npm start serves.
// An install without dev dependencies (npm ci --omit=dev) has no bundler: it says so and succeeds,
// and the dashboard surface answers 503 "not built" until a build with them has run.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Where npm puts a workspace's packages: its own node_modules, or hoisted to the root's.
const present = (name) => ["dashboard/node_modules", "node_modules"].some((dir) => existsSync(join(ROOT, dir, name, "package.json")));
const missing = ["vite", "@vitejs/plugin-react", "esbuild"].filter((name) => !present(name));
if (missing.length) {
  console.log(
    `build:dashboard: skipped, ${missing.join(", ")} not installed (an install without dev dependencies); run npm ci, then npm run build:dashboard`,
  );
  process.exit(0);
}
const run = (args) => execFileSync("npm", args, { cwd: ROOT, stdio: "inherit" });
run(["run", "-s", "sdk:build"]);
run(["run", "-s", "build", "-w", "@subbridge/dashboard"]);
