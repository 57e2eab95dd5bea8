// The Discord application's interactions endpoint: POST {base_url}/connectors/discord/interactions,
// the one "Interactions Endpoint URL" set in Discord's developer portal. Discord signs every request
// with the application's Ed25519 key (X-Signature-Ed25519 over X-Signature-Timestamp + the raw
// body); the signature is checked before the body is parsed, and a missing, malformed or wrong one,
// or a timestamp more than five minutes away, answers 401 (Discord sends bad signatures on purpose
// and removes an endpoint that accepts them). No bearer token is read here: an Authorization header
// changes nothing. A PING answers PONG; a slash command of a server with an installation is answered
// at once (type 4), or deferred (type 5) with the answer PATCHed afterwards when the work calls a
// payment provider (/cancel). Every answer is ephemeral: only the member who used the command sees it.
import type Koa from "koa";
import type { KeyObject } from "node:crypto";
import type { Logger } from "pino";
import { unscoped, type Actor } from "../../db/tenant.ts";
import { ApiError, validationFailed } from "../../errors.ts";
import { decodeBody, readBodyBytes } from "../../http/body.ts";
import type { RequestState } from "../../http/request.ts";
import { DISCORD_COMMANDS } from "../../modules/connectors/bot/discord-commands.ts";
import { editInteractionReply } from "../../modules/connectors/drivers/discord.ts";
import type { InstallationRow } from "../../modules/connectors/tables.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";
import { ed25519PublicKey, verifyEd25519 } from "../../security/ed25519.ts";
import { COMMAND_ANSWERS, type CommandCall, type InteractionDeps } from "./discord-command-answers.ts";
import { unstorableFields } from "./telegram-updates.ts";

export const DISCORD_INTERACTIONS_PATH = "/connectors/discord/interactions";

/** Discord's interactions are a few kilobytes; anything larger is no interaction. */
const MAX_INTERACTION_BYTES = 64 * 1024;
/** How far the signed timestamp may be from now, in seconds (a replayed request is older). */
const MAX_CLOCK_SKEW_S = 300;
/** How long a deferred answer's work may take before the member is told it is still under way. */
const DEFERRED_DEADLINE_MS = 20_000;
/** Discord's ephemeral flag (only the user who used the command sees the answer). */
const EPHEMERAL = 64;

const PONG = { type: 1 };
/** An immediate answer; mentions are never pinged from the bot's text. */
const message = (content: string) => ({
  type: 4,
  data: { content: content.slice(0, 2000), flags: EPHEMERAL, allowed_mentions: { parse: [] } },
});
const DEFERRED = { type: 5, data: { flags: EPHEMERAL } };

export const IN_SERVER_ONLY = "Use this command in the community's Discord server.";
export const NOT_CONNECTED = "This server is not connected to SubBridge yet.";
export const UNKNOWN_COMMAND = "Unknown command.";
export const UNSTORABLE = "Your message holds characters that cannot be kept. Remove them and try again.";
const STILL_WORKING = "This is taking longer than usual. Check /status in a minute to see whether it went through.";
const FAILED = "Something went wrong on our side. Try again in a moment.";

interface DiscordUser {
  id?: unknown;
  username?: unknown;
  global_name?: unknown;
  bot?: unknown;
}

interface Interaction {
  type?: unknown;
  token?: unknown;
  guild_id?: unknown;
  member?: { user?: DiscordUser };
  user?: DiscordUser;
  data?: { name?: unknown; options?: { name?: unknown; value?: unknown }[] };
}

function refused(reason: string): ApiError {
  return new ApiError("AUTHENTICATION_REQUIRED", `The interaction was not signed by this deployment's Discord application: ${reason}.`, {
    remediation: "Only Discord posts here: it signs each request with the application's Ed25519 key (X-Signature-Ed25519, X-Signature-Timestamp).",
  });
}

/** The body, once its signature is proven; 401 before anything is parsed otherwise. */
async function verifiedBody(ctx: Koa.Context, deps: PipelineDeps, key: () => KeyObject | null): Promise<Buffer> {
  const publicKey = key();
  if (!publicKey) throw refused("this deployment has no Discord application (DISCORD_PUBLIC_KEY)");
  const signature = ctx.get("x-signature-ed25519");
  const timestamp = ctx.get("x-signature-timestamp");
  if (!signature || !timestamp) throw refused("the signature headers are missing");
  if (!/^[0-9a-fA-F]{128}$/.test(signature) || !/^[0-9]{1,12}$/.test(timestamp)) throw refused("the signature headers are malformed");
  if (Math.abs(deps.now().getTime() / 1000 - Number(timestamp)) > MAX_CLOCK_SKEW_S) throw refused("the timestamp is not recent");
  const bytes = await readBodyBytes(ctx, MAX_INTERACTION_BYTES);
  if (!verifyEd25519(publicKey, Buffer.concat([Buffer.from(timestamp, "utf8"), bytes]), signature)) throw refused("the signature does not match");
  return bytes;
}

/** The options of a command, by name (strings and integers only: the commands take nothing else). */
function optionsOf(interaction: Interaction): Record<string, string | number> {
  const options: Record<string, string | number> = Object.create(null);
  for (const option of Array.isArray(interaction.data?.options) ? interaction.data.options : []) {
    if (typeof option?.name === "string" && (typeof option.value === "string" || typeof option.value === "number"))
      options[option.name] = option.value;
  }
  return options;
}

/** The person who used the command: the server member's user, or the user of a DM. */
function accountOf(interaction: Interaction): CommandCall["account"] | null {
  const user = interaction.member?.user ?? interaction.user;
  if (typeof user?.id !== "string" || !/^[0-9]{1,20}$/.test(user.id) || user.bot === true) return null;
  const name = [user.global_name, user.username].find((n): n is string => typeof n === "string" && n.length > 0) ?? null;
  return { connectorKey: "discord", externalUserId: user.id, displayName: name };
}

/** The server's installation: the oldest active one, should two projects hold the same server. */
async function installationOf(deps: PipelineDeps, guild: string): Promise<InstallationRow | undefined> {
  const db = unscoped(deps.db, "Discord's interactions: the installation is found by its server, proven by the application's signature");
  return (await db("connector_installations")
    .where({ connector_key: "discord", platform_account_id: guild, status: "active" })
    .orderBy([{ column: "created_at" }, { column: "id" }])
    .first()) as InstallationRow | undefined;
}

/** Runs `work` once the answer is sent (its connection closed), logging a failure instead of throwing. */
function afterAnswer(ctx: Koa.Context, logger: Logger, what: string, work: () => Promise<void>): void {
  ctx.res.once("close", () => {
    work().catch((err: unknown) => logger.warn({ err }, `discord interaction: ${what} failed after the answer`));
  });
}

/** The deferred work's text, or a notice when it runs past the deadline (the work itself goes on). */
async function withinDeadline(work: Promise<string>, logger: Logger): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(STILL_WORKING), DEFERRED_DEADLINE_MS);
    timer.unref();
  });
  try {
    return await Promise.race([
      work.catch((err: unknown) => {
        logger.error({ err }, "discord interaction: a deferred command failed");
        return FAILED;
      }),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function discordInteractions(deps: InteractionDeps & { logger: Logger }): Koa.Middleware {
  let cached: { hex: string; key: KeyObject } | null = null;
  const key = () => {
    const hex = deps.platforms.discord?.publicKey;
    if (!hex) return null;
    if (cached?.hex !== hex) cached = { hex, key: ed25519PublicKey(hex) };
    return cached.key;
  };
  const discord = { apiUrl: deps.platforms.discordApiUrl, timeoutMs: deps.platforms.timeoutMs, application: deps.platforms.discord };
  return async (ctx) => {
    const bytes = await verifiedBody(ctx, deps, key);
    let parsed: unknown;
    try {
      parsed = JSON.parse(decodeBody(bytes));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw validationFailed({ body: ["is not valid JSON"] }, "The interaction could not be read: it is not valid JSON.");
    }
    // Anything but an object is no interaction (answered as an unknown command below).
    const interaction = (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {}) as Interaction;
    ctx.status = 200;
    if (interaction.type === 1) {
      ctx.body = PONG;
      return;
    }
    const name = interaction.type === 2 && typeof interaction.data?.name === "string" ? interaction.data.name : null;
    const answer = name && DISCORD_COMMANDS.some((c) => c.name === name) ? COMMAND_ANSWERS[name] : undefined;
    const account = accountOf(interaction);
    if (!answer || !account) {
      ctx.body = message(UNKNOWN_COMMAND);
      return;
    }
    // No column stores a NUL or an unpaired surrogate: a message or a name holding one would answer 500.
    if (unstorableFields(interaction).length) {
      ctx.body = message(UNSTORABLE);
      return;
    }
    if (typeof interaction.guild_id !== "string") {
      ctx.body = message(IN_SERVER_ONLY);
      return;
    }
    const installation = await installationOf(deps, interaction.guild_id);
    if (!installation) {
      ctx.body = message(NOT_CONNECTED);
      return;
    }
    const actor: Actor = {
      userId: null,
      teamId: installation.team_id,
      projectIds: null,
      kind: "webhook",
      credentialKind: null,
      requestId: (ctx.state as RequestState).requestId,
    };
    const logger = deps.logger.child({ installation_id: installation.id, command: name });
    const result = await answer(deps, { installation, account, options: optionsOf(interaction), actor, logger });
    if ("deferred" in result) {
      const token = typeof interaction.token === "string" ? interaction.token : "";
      ctx.body = DEFERRED;
      afterAnswer(ctx, logger, "the follow-up", async () => {
        const text = await withinDeadline(result.deferred(), logger);
        await editInteractionReply(discord, token, text.slice(0, 2000));
      });
      return;
    }
    ctx.body = message(result.content);
    if (result.after) afterAnswer(ctx, logger, "the work after the answer", result.after);
  };
}
