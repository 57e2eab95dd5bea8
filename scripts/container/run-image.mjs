// The image's own commands run outside a container (CI has no container engine): each stage gets a
// folder standing for its filesystem; the build stage's COPY of the context and its RUN commands run
// there, the runtime stage's COPY --from steps fill its folder, and its CMD starts as an unprivileged
// user (nobody, when this runs as root) with the stage's ENV, until its HEALTHCHECK command passes.
// Then SIGTERM, and the server must exit cleanly. What cannot be the same outside a container is
// said where it is done: absolute image paths live under the stage's folder, and the server listens
// on 127.0.0.1 and free ports rather than the image's 0.0.0.0 and fixed ones.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { parseDockerfile } from "./dockerfile.mjs";

const STARTED = Date.now();
const log = (message) => console.log(`container:check [${Math.round((Date.now() - STARTED) / 1000)}s] ${message}`);

/** The build context: the repository's files (tracked and new, not ignored) less what .dockerignore leaves out. */
function contextFiles(root) {
  const ignored = readFileSync(join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const matches = (file, pattern) =>
    pattern.startsWith("*.") ? file.endsWith(pattern.slice(1)) : file === pattern || file.startsWith(`${pattern}/`);
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" });
  return listed.split("\0").filter((f) => f && !ignored.some((p) => matches(f, p)));
}

/** The user the image's USER stands for here: nobody when this runs as root, else this user (already unprivileged). */
function runAs() {
  if (process.getuid() !== 0) return null;
  return {
    uid: Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" })),
    gid: Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" })),
  };
}

function asUser(user, command) {
  return user ? ["setpriv", [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--", ...command]] : [command[0], command.slice(1)];
}

function chownTree(path, user) {
  if (user) execFileSync("chown", ["-R", `${user.uid}:${user.gid}`, path]);
}

/** A port free now on 127.0.0.1, below the kernel's ephemeral range so nothing else is handed it meanwhile. */
async function freePort() {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

function substitute(value, args) {
  return value.replace(/\$\{(\w+)\}/g, (_, name) => args[name] ?? "");
}

export async function runImage(root, { timeoutMs = 300_000 } = {}) {
  const image = parseDockerfile(readFileSync(join(root, "Dockerfile"), "utf8"));
  const top = mkdtempSync(join(tmpdir(), "subbridge-image-"));
  // The unprivileged user must reach the runtime stage's folder through this one.
  chmodSync(top, 0o755);
  const user = runAs();
  const folders = new Map();
  const inStage = (stage, path) => join(folders.get(stage), isAbsolute(path) ? path : join(stage.workdir, path));
  try {
    for (const [index, stage] of image.stages.entries()) {
      const name = stage.name ?? String(index);
      folders.set(stage, join(top, name));
      mkdirSync(inStage(stage, "."), { recursive: true });
      log(`stage ${name} (${substitute(stage.from, image.args)}): ${inStage(stage, ".")}`);
      const env = { ...process.env, ...stage.env };
      for (const step of stage.steps) {
        if (step.keyword === "RUN") {
          log(`RUN ${step.args}`);
          const result = spawnSync("sh", ["-c", step.args], { cwd: inStage(stage, "."), env, stdio: "inherit" });
          if (result.status !== 0) throw new Error(`RUN ${step.args}: exit ${result.status}`);
          continue;
        }
        const sources = step.args.slice(0, -1);
        const destination = inStage(stage, step.args.at(-1));
        const from = step.flags.from && image.stages.find((s) => s.name === step.flags.from);
        if (step.flags.from && !from) throw new Error(`COPY --from=${step.flags.from}: no such stage`);
        if (!from && sources.join(" ") === ".") {
          const files = contextFiles(root);
          log(`COPY . ${step.args.at(-1)} (${files.length} files of the build context)`);
          for (const file of files) cpSync(join(root, file), join(destination, file), { verbatimSymlinks: true });
        } else {
          log(`COPY ${step.flags.from ? `--from=${step.flags.from} ` : ""}${step.args.join(" ")}`);
          for (const source of sources) {
            const path = from ? inStage(from, source) : join(root, source);
            const target = step.args.at(-1).endsWith("/") ? join(destination, source.split("/").at(-1)) : destination;
            mkdirSync(dirname(target), { recursive: true });
            cpSync(path, target, { recursive: true, verbatimSymlinks: true });
            if (step.flags.chown) chownTree(target, user);
          }
        }
      }
    }
    return await startRuntime(image.stages.at(-1), inStage, user, timeoutMs);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}

async function startRuntime(stage, inStage, user, timeoutMs) {
  const env = { ...process.env };
  for (const [key, value] of Object.entries(stage.env)) env[key] = value.startsWith("/") ? inStage(stage, value) : value;
  const apiPort = await freePort();
  // Outside a container the other surfaces take ports the kernel picks, and nothing listens beyond this machine.
  Object.assign(env, { HOST: "127.0.0.1", API_PORT: String(apiPort), BASE_URL: `http://127.0.0.1:${apiPort}`, LOG_LEVEL: "warn" });
  for (const surface of ["MCP", "AUTH", "SITE", "DOCS", "PORTAL", "DASHBOARD"]) env[`${surface}_PORT`] = "0";
  const [command, args] = asUser(user, stage.cmd);
  log(`CMD ${stage.cmd.join(" ")} as ${user ? `uid ${user.uid}` : "this user"} (API_PORT=${apiPort}, DATA_DIR=${env.DATA_DIR})`);
  const started = Date.now();
  const server = spawn(command, args, { cwd: inStage(stage, "."), env, stdio: ["ignore", "inherit", "inherit"] });
  const exited = new Promise((resolve) => server.once("exit", (code, signal) => resolve({ code, signal })));
  let healthy = false;
  try {
    while (!healthy && Date.now() - started < timeoutMs) {
      const state = await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1000))]);
      if (state) throw new Error(`the server exited before its HEALTHCHECK passed: ${JSON.stringify(state)}`);
      const [probe, probeArgs] = asUser(user, stage.healthcheck);
      healthy = spawnSync(probe, probeArgs, { env, stdio: "ignore", timeout: 10_000 }).status === 0;
    }
    if (!healthy) throw new Error(`the HEALTHCHECK did not pass within ${timeoutMs / 1000} s`);
    log(`HEALTHCHECK passed ${((Date.now() - started) / 1000).toFixed(1)} s after the start`);
  } finally {
    server.kill("SIGTERM");
  }
  const { code, signal } = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve({ code: "timeout" }), 60_000))]);
  if (code !== 0) {
    server.kill("SIGKILL");
    throw new Error(`after SIGTERM the server ended with ${code ?? signal}, not a clean exit`);
  }
  log("SIGTERM: the server drained and exited 0");
}
