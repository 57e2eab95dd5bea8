// What the bot answers each creator command with (bot-commands.ts lists them; creator-commands.ts
// checks who may use them). Each reuses what the API does: the dashboard's numbers, the support
// reply, the access-code generation, the recovery settings and the creator tasks, acting as the
// linked creator (the causer of what a command changes). Answers are short plain text.
import { createDomainContext, type Actor, type Db } from "../../../db/tenant.ts";
import { ApiError } from "../../../errors.ts";
import { generateAccessCodes } from "../../access-codes/codes.ts";
import { dashboardNumbers } from "../../analytics/analytics.ts";
import { presentTasks } from "../../creator-tasks/tasks.ts";
import { creatorTasksTable, type CreatorTaskRow } from "../../creator-tasks/tables.ts";
import type { PlatformAccount } from "../../members/members.ts";
import { plansTable, type PlanRow } from "../../plans/tables.ts";
import { recoverySettingsTable, type RecoverySettingRow } from "../../recovery/tables.ts";
import { replyToConversation } from "../../support/replies.ts";
import { conversationsTable, type ConversationRow } from "../../support/tables.ts";
import type { ConnectorRegistry } from "../registry.ts";
import { installationsTable, type InstallationRow } from "../tables.ts";
import { conversationInRelay, SHORT_ID_LENGTH } from "./creator-relay.ts";
import { price } from "./start.ts";
import { installationTexts, type BotTexts } from "./texts.ts";

export interface CommandDeps {
  db: Db;
  connectors: Pick<ConnectorRegistry, "packages">;
  now: () => Date;
}

export interface CreatorCall {
  installation: InstallationRow;
  account: PlatformAccount;
  /** The linked creator acting (userId is theirs). */
  actor: Actor;
  /** What followed the command ("" for none). */
  args: string;
  /** The text of the bot's message this one answers (Telegram's reply_to_message), or null. */
  replyTo: string | null;
}

export type CreatorAnswer = (deps: CommandDeps, call: CreatorCall) => Promise<string>;

/** The most codes one /codes makes: they are answered in the chat. */
export const MAX_CODES_PER_COMMAND = 20;

const contextOf = (deps: CommandDeps, call: CreatorCall, db: Db = deps.db) => createDomainContext(db, call.actor, deps.now());

/** The answers' words, in the installation's language (the creator reads the bot they set up). */
export const textsOf = (deps: Pick<CommandDeps, "connectors">, call: Pick<CreatorCall, "installation">): BotTexts =>
  installationTexts(deps.connectors.packages, call.installation);

/** An amount in a currency's minor units, in words: "$12.50", "250 stars". */
export function money(amount: number, currency: string): string {
  // XTR (Telegram Stars) is no ISO currency: its amounts are whole stars.
  if (currency === "XTR") return `${amount} ${amount === 1 ? "star" : "stars"}`;
  const format = new Intl.NumberFormat("en", { style: "currency", currency });
  return format.format(amount / 10 ** format.resolvedOptions().maximumFractionDigits!);
}

const amounts = (rows: readonly { amount: number; currency: string }[]) => rows.map((r) => money(r.amount, r.currency)).join(", ");

async function stats(deps: CommandDeps, call: CreatorCall): Promise<string> {
  const ctx = contextOf(deps, call);
  const now = ctx.now;
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  // The window must not be empty: at midnight exactly it is the last millisecond.
  const from = dayStart.getTime() < now.getTime() ? dayStart : new Date(now.getTime() - 1);
  const numbers = await dashboardNumbers(ctx, call.installation.project_id, { period: "7d", from: from.toISOString(), to: now.toISOString() });
  const failed = numbers.failed_payments.reduce((n, r) => n + r.count, 0);
  const { t } = textsOf(deps, call);
  return [
    t("Today (UTC {date}):", { date: dayStart.toISOString().slice(0, 10) }),
    t("Active members: {count}", { count: numbers.members.active }),
    numbers.mrr.length ? t("MRR: {amounts}", { amounts: amounts(numbers.mrr) }) : t("MRR: none yet"),
    failed
      ? t("Failed payments today: {count} ({amounts})", { count: failed, amounts: amounts(numbers.failed_payments) })
      : t("Failed payments today: {count}", { count: failed }),
  ].join("\n");
}

/** The project's conversation a creator names by its first characters or its whole id; a text when there is none or several. */
async function conversationNamed(deps: CommandDeps, call: CreatorCall, name: string): Promise<ConversationRow | string> {
  const given = name.toLowerCase();
  const { t } = textsOf(deps, call);
  const missing = t("There is no conversation {name} in this community.", { name: given.slice(0, 36) });
  if (!/^[0-9a-f-]{8,36}$/.test(given)) return missing;
  const rows = (await conversationsTable
    .rows(contextOf(deps, call))
    .where({ project_id: call.installation.project_id })
    .whereRaw("cast(id as text) like ?", [`${given}%`])
    .limit(2)
    .select("*")) as ConversationRow[];
  if (rows.length > 1) return t("Several conversations start with {name}: give more of its id.", { name: given });
  return rows[0] ?? missing;
}

async function reply(deps: CommandDeps, call: CreatorCall): Promise<string> {
  // Replying to a relayed message names the conversation; /reply names it first.
  const relayed = call.replyTo ? conversationInRelay(call.replyTo) : null;
  const [first = ""] = call.args.trim().split(/\s+/);
  const name = relayed ?? first;
  const body = relayed ? call.args.trim() : call.args.trim().slice(first.length).trim();
  const { t } = textsOf(deps, call);
  if (!name)
    return t("Send /reply <conversation> <your answer>: the conversation's first {count} characters are in the relayed message.", {
      count: SHORT_ID_LENGTH,
    });
  if (!body) return t("Write your answer after the conversation.");
  const conversation = await conversationNamed(deps, call, name);
  if (typeof conversation === "string") return conversation;
  try {
    await deps.db.transaction((trx) =>
      replyToConversation(contextOf(deps, call, trx), deps.connectors, call.installation.project_id, conversation.id, { body }),
    );
    return t("Your reply is on its way to the member.");
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "VALIDATION_FAILED") throw err;
    const field = Object.values(err.fields ?? {})[0]?.[0];
    return field
      ? t("Your reply was not sent: it {problem}.", { problem: field })
      : t("Your reply was not sent: {problem}", { problem: err.message });
  }
}

/** The project's published plans, in the order /codes numbers them. */
async function publishedPlans(deps: CommandDeps, call: CreatorCall): Promise<PlanRow[]> {
  return (await plansTable
    .rows(contextOf(deps, call))
    .where({ project_id: call.installation.project_id, status: "published" })
    .orderBy([{ column: "created_at" }, { column: "id" }])
    .select("*")) as PlanRow[];
}

async function codes(deps: CommandDeps, call: CreatorCall): Promise<string> {
  const plans = await publishedPlans(deps, call);
  const texts = textsOf(deps, call);
  const { t } = texts;
  if (!plans.length) return t("This community has no published plan: publish one on the dashboard first.");
  const [which, many] = call.args.trim().split(/\s+/).filter(Boolean);
  const listed = [
    t("Plans:"),
    ...plans.map((p, i) => `${i + 1}. ${p.name} (${price(p, texts)})`),
    t("Send /codes <plan number> [how many, up to 20]."),
  ];
  if (!which) return listed.join("\n");
  const plan = /^[0-9]{1,3}$/.test(which) ? plans[Number(which) - 1] : plans.find((p) => p.id === which.toLowerCase());
  if (!plan) return [t("There is no plan {name}.", { name: which.slice(0, 36) }), ...listed].join("\n");
  const quantity = many === undefined ? 1 : Number(many);
  if (!Number.isInteger(quantity) || quantity < 1) return t("How many codes? Give a whole number from 1 to 20.");
  if (quantity > MAX_CODES_PER_COMMAND)
    return t("The bot makes at most {count} codes at a time: generate more on the dashboard (Plans, Access codes).", {
      count: MAX_CODES_PER_COMMAND,
    });
  try {
    const batch = await deps.db.transaction((trx) => generateAccessCodes(contextOf(deps, call, trx), plan.project_id, plan.id, { quantity }));
    const link = call.installation.bot_url ? [t("A member redeems one with {link}.", { link: `${call.installation.bot_url}?start=<code>` })] : [];
    return [
      quantity === 1
        ? t("1 access code for {plan} (it works once, shown only now):", { plan: plan.name })
        : t("{count} access codes for {plan} (each works once, shown only now):", { count: quantity, plan: plan.name }),
      ...batch.codes.map((c) => c.code),
      ...link,
      t("{count} left this month.", { count: batch.quota_remaining }),
    ].join("\n");
  } catch (err) {
    if (err instanceof ApiError && err.code === "ACCESS_CODE_CAP_EXCEEDED") return t("No codes were made: {problem}", { problem: err.message });
    throw err;
  }
}

const when = (at: Date) => `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;

async function recovery(deps: CommandDeps, call: CreatorCall): Promise<string> {
  const ctx = contextOf(deps, call);
  const settings = (await recoverySettingsTable
    .rows(ctx)
    .where({ project_id: call.installation.project_id })
    .orderBy("created_at")
    .select("*")) as (RecoverySettingRow & { failing_places: string[] | null })[];
  const { t } = textsOf(deps, call);
  if (!settings.length) return t("No recovery settings yet: set them up on the dashboard (Recovery).");
  const ids = settings.flatMap((s) => [s.installation_id, s.standby_installation_id].filter((id): id is string => id !== null));
  const installations = (await installationsTable.rows(ctx).whereIn("id", ids).select("id", "platform_account_name")) as {
    id: string;
    platform_account_name: string | null;
  }[];
  const named = (id: string) => installations.find((i) => i.id === id)?.platform_account_name ?? id;
  const lines = settings.flatMap((s) => {
    const failing = typeof s.failing_places === "string" ? (JSON.parse(s.failing_places) as string[]) : (s.failing_places ?? []);
    const status = s.status ?? t("not probed yet");
    const bot = `${s.connector_key} (${named(s.installation_id)})`;
    return [
      s.last_probe_at
        ? t("{bot}: {status}, last probe {date}", { bot, status, date: when(s.last_probe_at) })
        : t("{bot}: {status}, never probed", { bot, status }),
      [
        s.probes_enabled ? t("• probes every {count} min", { count: s.probe_interval_minutes }) : t("• probes off"),
        s.standby_installation_id ? t("standby bot {bot}", { bot: named(s.standby_installation_id) }) : t("no standby bot"),
        s.identity_relink_enabled ? t("identity relink on") : t("identity relink off"),
      ].join("; "),
      ...(failing.length ? [t("• failing: {places}", { places: failing.join(", ") })] : []),
    ];
  });
  return [t("Recovery:"), ...lines].join("\n");
}

/** The open tasks /tasks lists; the dashboard lists the rest. */
const TASKS_SHOWN = 10;

async function tasks(deps: CommandDeps, call: CreatorCall): Promise<string> {
  const ctx = contextOf(deps, call);
  const open = creatorTasksTable.rows(ctx).where({ project_id: call.installation.project_id, status: "open" });
  const total = Number((await open.clone().count({ n: "*" }).first())?.n ?? 0);
  const { t } = textsOf(deps, call);
  if (!total) return t("No open creator tasks.");
  const rows = (await open
    .orderByRaw("due_at asc nulls last")
    .orderBy([{ column: "created_at" }, { column: "id" }])
    .limit(TASKS_SHOWN)
    .select("*")) as CreatorTaskRow[];
  const shown = await presentTasks(ctx, rows);
  const lines = shown.map((task) => {
    const vars = { perk: task.perk.title, member: task.member.display_name ?? task.member.id };
    return task.due_at ? t("• {perk} for {member}, due {date}", { ...vars, date: task.due_at.slice(0, 10) }) : t("• {perk} for {member}", vars);
  });
  const more = total > shown.length ? [t("…and {count} more on the dashboard.", { count: total - shown.length })] : [];
  return [
    t("Open creator tasks ({count}):", { count: total }),
    ...lines,
    ...more,
    t("Mark a task complete on the dashboard (Tasks) once handed over."),
  ].join("\n");
}

/** The answer to each creator command of bot-commands.ts, by name. */
export const CREATOR_ANSWERS: Readonly<Record<string, CreatorAnswer>> = { stats, reply, codes, recovery, tasks };
