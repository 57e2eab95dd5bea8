// A PgBouncer of the test's own (Debian's pgbouncer package) in transaction pooling mode in front of
// the TEST_DATABASE_URL server, on a free port with a generated ini, never the system's service.
// Missing, it fails the test with the package to install: a pooler test that skips proves nothing.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { holdOpen } from "./open-resources.ts";
import { freePort, tempDir } from "./processes.ts";

export interface PgBouncer {
  /** postgres:// URL of `database` through the pooler. */
  url(database: string): string;
  /** What PgBouncer wrote (its log goes to standard error). */
  output(): string;
  stop(): Promise<void>;
}

/** The pgbouncer program: Debian installs it in /usr/sbin, which a non-root PATH may lack. */
export function pgBouncerProgram(): string {
  for (const path of ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]) if (existsSync(path)) return path;
  const found = spawnSync("sh", ["-c", "command -v pgbouncer"], { encoding: "utf8" }).stdout.trim();
  if (found) return found;
  throw new Error("pgbouncer is not installed: install Debian's package (apt-get install -y pgbouncer) to run the PgBouncer tests");
}

export async function startPgBouncer(options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const program = pgBouncerProgram();
  const server = new URL(process.env.TEST_DATABASE_URL!);
  const user = decodeURIComponent(server.username || "postgres");
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = tempDir("pgbouncer");
  // PgBouncer refuses to run as root: as root the test hands it to nobody, who must read the files.
  chmodSync(dir, 0o755);
  const users = join(dir, "users.txt");
  writeFileSync(users, `"${user}" "${password}"\n`, { mode: 0o644 });
  const ini = join(dir, "pgbouncer.ini");
  const target = `host=${server.hostname} port=${server.port || 5432} user=${user}${password ? ` password=${password}` : ""}`;
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = ${target}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${users}`,
      "pool_mode = transaction",
      "max_client_conn = 500",
      `default_pool_size = ${options.poolSize ?? 20}`,
      // node-postgres sends the service's bounds as startup parameters, which PgBouncer cannot keep
      // per client: it ignores them, and the database carries them instead (ALTER DATABASE ... SET).
      "ignore_startup_parameters = statement_timeout,lock_timeout,idle_in_transaction_session_timeout",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  const args = process.getuid?.() === 0 ? ["-u", "nobody", ini] : [ini];
  const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const release = holdOpen(`pgbouncer on 127.0.0.1:${port}`, stop);
  child.once("exit", release);
  const url = (database: string) => {
    const u = new URL(`postgres://127.0.0.1:${port}/${database}`);
    u.username = user;
    if (password) u.password = password;
    return u.toString();
  };
  // Ready once a query through it is answered (it listens within milliseconds; generous on a loaded machine).
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}) before it answered:\n${out}`);
    const client = new pg.Client({ connectionString: url("postgres"), connectionTimeoutMillis: 2_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("select 1");
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`pgbouncer did not answer within 30 s (${String(err)}):\n${out}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { url, output: () => out, stop };
}
