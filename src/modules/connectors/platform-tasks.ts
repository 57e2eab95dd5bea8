// The platform half of an installation change, carried out after COMMIT. Installing (or presenting
// a new bot token) points the bot's updates at the installation's address; uninstalling (or moving
// to another bot) stops the old bot's. The change writes a task in its own transaction
// (queuePlatformTask); the process that committed it runs the task at once (a commit effect), and
// the connectors.platform-tasks job tries failed ones again with growing delays, giving up after a
// day. A change that rolls back leaves no task, so the platform is never changed for it. Pointing
// a bot's updates here also sets its member command menu; a creator linking their account asks for
// their own chat's menu (advertise_commands, queueCommandMenu).
import type { Knex } from "knex";
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { afterCommit, createDomainContext, systemActor, tenantTable, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { PlatformError } from "./drivers/driver.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import type { InstallationRow } from "./tables.ts";
import { installationSession, updatesSecret, updatesUrl } from "./bot/session.ts";
import { MEMBER_COMMANDS, type BotCommandLine } from "./bot/bot-commands.ts";

export const platformTasksTable = tenantTable("connector_platform_tasks", { team: "team_id", project: "project_id" });

export type PlatformTaskAction = "deliver_updates" | "stop_updates" | "advertise_commands";

interface TaskRow {
  id: string;
  team_id: string;
  installation_id: string;
  connector_key: string;
  platform_account_id: string | null;
  action: PlatformTaskAction;
  target_url: string | null;
  credentials: string | null;
  chat_id: string | null;
  commands: BotCommandLine[] | string | null;
  attempts: number;
  created_at: Date;
}

export type PlatformTaskEnvironment = Pick<ConnectorEnvironment, "platforms" | "appKey">;

/** How long a process holds a task it is running (a process that dies mid-call frees it then). */
const CLAIM_MS = 60_000;
/** Retries wait 30 s, 1 min, 2 min ... up to an hour; a task still failing after a day is given up. */
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 60 * 60_000;
const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/**
 * Asks, in the change's transaction, for `action` on the platform for `installation` (as it stands
 * in this change); it runs once the change commits. An earlier unfinished task of the same bot is
 * superseded: only the latest wish for a bot is carried out.
 */
export async function queuePlatformTask(
  ctx: DomainContext,
  env: Pick<ConnectorEnvironment, "baseUrl">,
  installation: InstallationRow,
  action: Exclude<PlatformTaskAction, "advertise_commands">,
): Promise<string> {
  // A bot whose updates stop needs no menu either; pointing them here leaves the chats' menus asked for.
  const replaced = action === "stop_updates" ? ["deliver_updates", "stop_updates", "advertise_commands"] : ["deliver_updates", "stop_updates"];
  return insertTask(ctx, installation, { action, target_url: action === "deliver_updates" ? updatesUrl(env.baseUrl, installation) : null }, (q) =>
    q.whereIn("action", replaced),
  );
}

/**
 * Asks, in the change's transaction, for the bot's command menu in one person's private chat
 * (`chat`, a linked creator's): an earlier unfinished menu of that chat is superseded.
 */
export async function queueCommandMenu(
  ctx: DomainContext,
  installation: InstallationRow,
  chat: string,
  commands: readonly BotCommandLine[],
): Promise<string> {
  const task = { action: "advertise_commands" as const, chat_id: chat, commands: JSON.stringify(commands) };
  return insertTask(ctx, installation, task, (q) => q.where({ action: "advertise_commands", chat_id: chat }));
}

async function insertTask(
  ctx: DomainContext,
  installation: InstallationRow,
  task: { action: PlatformTaskAction; target_url?: string | null; chat_id?: string; commands?: string },
  superseding: (q: Knex.QueryBuilder) => unknown,
): Promise<string> {
  const earlier = platformTasksTable
    .rows(ctx)
    .where({ installation_id: installation.id })
    .whereRaw("platform_account_id is not distinct from ?", [installation.platform_account_id])
    .whereNull("finished_at");
  superseding(earlier);
  await earlier.update({ finished_at: ctx.now, outcome: "superseded", claimed_until: null });
  const id = randomUUID();
  await platformTasksTable.insert(ctx, {
    id,
    project_id: installation.project_id,
    installation_id: installation.id,
    connector_key: installation.connector_key,
    platform_account_id: installation.platform_account_id,
    ...task,
    credentials: installation.credentials,
    next_attempt_at: ctx.now,
    created_at: ctx.now,
  });
  afterCommit(ctx, { kind: "platform-tasks", taskIds: [id] });
  return id;
}

async function carryOut(env: PlatformTaskEnvironment, task: TaskRow): Promise<void> {
  const session = installationSession(env, { ...task, id: task.installation_id });
  if (task.action === "advertise_commands") {
    const commands = typeof task.commands === "string" ? (JSON.parse(task.commands) as BotCommandLine[]) : (task.commands ?? []);
    return session.setCommands?.(commands, task.chat_id);
  }
  if (!session.deliverUpdates) return;
  const target = task.action === "deliver_updates" ? { url: task.target_url!, secret: updatesSecret(env.appKey, task.installation_id) } : null;
  try {
    await session.deliverUpdates(target);
    // The members' menu in every private chat; a failure tries both again (each call is idempotent).
    if (target) await session.setCommands?.(MEMBER_COMMANDS, null);
  } catch (err) {
    // A bot whose token no longer works sends no updates anywhere: there is nothing left to stop.
    if (task.action === "stop_updates" && err instanceof PlatformError && err.kind === "unauthorized") return;
    throw err;
  }
}

const retryDelay = (attempts: number) => Math.min(FIRST_RETRY_MS * 2 ** (attempts - 1), LONGEST_RETRY_MS);

export interface PlatformTaskScope {
  /** Only these tasks (the ones a change just committed); every due task when absent. */
  taskIds?: readonly string[];
  limit?: number;
}

/**
 * Runs the due tasks (each outside any transaction, then its outcome in one statement); answers
 * how many were carried out. A failure is recorded on the task and tried again later.
 */
export async function runPlatformTasks(
  db: Db,
  env: PlatformTaskEnvironment,
  now: Date,
  scope: PlatformTaskScope = {},
  logger?: Logger,
): Promise<number> {
  const tasks = unscoped(db, "platform tasks are run for every team by the process that finds them due");
  const due = tasks("connector_platform_tasks")
    .whereNull("finished_at")
    .where("next_attempt_at", "<=", now)
    .where((q) => q.whereNull("claimed_until").orWhere("claimed_until", "<", now))
    .orderBy("next_attempt_at")
    .limit(scope.limit ?? 100)
    .forUpdate()
    .skipLocked()
    .select("id");
  if (scope.taskIds) due.whereIn("id", [...scope.taskIds]);
  const claimed = (await tasks("connector_platform_tasks")
    .whereIn("id", due)
    .update({ claimed_until: new Date(now.getTime() + CLAIM_MS) })
    .returning("*")) as TaskRow[];
  let done = 0;
  for (const task of claimed) {
    const mine = tasks("connector_platform_tasks").where({ id: task.id }).whereNull("finished_at");
    try {
      await carryOut(env, task);
    } catch (err) {
      const attempts = task.attempts + 1;
      const message = err instanceof Error ? err.message : String(err);
      const givenUp = now.getTime() - new Date(task.created_at).getTime() >= GIVE_UP_AFTER_MS;
      await mine.update({
        attempts,
        last_error: message.slice(0, 500),
        claimed_until: null,
        next_attempt_at: new Date(now.getTime() + retryDelay(attempts)),
        ...(givenUp ? { finished_at: now, outcome: "failed" } : {}),
      });
      const fields = { task_id: task.id, installation_id: task.installation_id, action: task.action, attempts, err: message };
      if (givenUp) logger?.error(fields, "platform task given up after a day of failures");
      else logger?.warn(fields, "platform task failed; tried again later");
      continue;
    }
    await mine.update({ finished_at: now, outcome: "done", claimed_until: null, attempts: task.attempts + 1, last_error: null });
    // The bot (still the installation's) now has this release's setup.
    if (task.action === "deliver_updates")
      await tasks("connector_installations")
        .where({ id: task.installation_id })
        .whereRaw("platform_account_id is not distinct from ?", [task.platform_account_id])
        .update({ platform_setup_version: PLATFORM_SETUP_VERSION });
    done++;
  }
  return done;
}

/**
 * The bot setup a deliver_updates task gives (the updates it asks for, the members' command menu).
 * Raised when a release asks bots for more: 2 adds Telegram's chat_join_request and the menu.
 */
export const PLATFORM_SETUP_VERSION = 2;

/**
 * A simulated platform is new at every `npm start` and knows no bot, where Telegram keeps a bot's
 * webhook until told otherwise: without this, a restarted demo's bots would answer nobody. Each
 * active installation's bot is pointed at its address again through the task an install writes
 * (a failed call is retried by the job); answers how many tasks were carried out. With
 * `outdated`, only the bots an older release set up (PLATFORM_SETUP_VERSION): a real platform
 * keeps a webhook, but not the updates a newer release asks for.
 */
export async function reintroduceBots(
  db: Db,
  env: PlatformTaskEnvironment & Pick<ConnectorEnvironment, "baseUrl">,
  now: Date,
  scope: { teamId?: string; outdated?: boolean } = {},
  logger?: Logger,
): Promise<number> {
  const active = unscoped(
    db,
    "a start points every team's bots at their installations (a simulated platform's all, a real one's set up by an older release)",
  )("connector_installations").where({ status: "active" });
  if (scope.teamId) active.where({ team_id: scope.teamId });
  if (scope.outdated) active.where("platform_setup_version", "<", PLATFORM_SETUP_VERSION);
  const taskIds: string[] = [];
  for (const installation of (await active) as InstallationRow[]) {
    const queue = (trx: Db) =>
      queuePlatformTask(createDomainContext(trx, systemActor(installation.team_id), now), env, installation, "deliver_updates");
    taskIds.push(await db.transaction(queue));
  }
  return taskIds.length ? runPlatformTasks(db, env, now, { taskIds }, logger) : 0;
}
