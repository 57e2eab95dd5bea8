// The Discord connector's driver. Discord installs through OAuth (manifest mode oauth): the creator
// adds the platform's shared Discord application to a server in Discord's consent screen, and the
// dashboard sends the authorization code it got back. Install exchanges the code
// (POST /oauth2/token with the application's client id and secret): Discord answers the guild the
// bot was added to, which becomes the installation's platform account; GET /users/@me with the bot
// token checks the application's bot itself. The bot token is the deployment's (DISCORD_BOT_TOKEN),
// so an installation stores no credential. Discord has no start-payload links: members enter through
// the portal's sign-in with Discord (`signIn`), and bot_url is the installation's portal entry.
// Discord posts a server's slash commands to the application's one interactions endpoint; what makes
// it do so for a server is the server's commands, so `deliverUpdates` registers them there (the
// platform task an install queues), and editInteractionReply sends a deferred answer's follow-up.
import type { DiscordApplication } from "../../../config.ts";
import { DISCORD_COMMANDS } from "../bot/discord-commands.ts";
import {
  PlatformError,
  platformCall,
  type ConnectorDriver,
  type MemberGrant,
  type PlatformPlace,
  type PlatformSession,
  type PlatformSignIn,
  type ProbeResult,
} from "./driver.ts";
import { processRateLimits, type DiscordRateLimits } from "./discord-rate-limits.ts";

/** What a member grants on signing in: who they are, and that the bot may add them to the server. */
export const MEMBER_SCOPES = ["identify", "guilds.join"] as const;

/** Discord's error code for a user who is not (or no longer) in the server. */
const UNKNOWN_MEMBER = 10007;
/** Discord's largest page of List Guild Members. */
const MEMBERS_PAGE = 1000;

/** What a creator grants on adding the bot to a server: the bot itself, and its slash commands there. */
export const INSTALL_SCOPES = ["bot", "applications.commands"] as const;

// Discord's permission bits, each one the driver's calls need.
/** Single-use invite links (POST /channels/{c}/invites); Add Guild Member needs it of the bot too. */
const CREATE_INSTANT_INVITE = 1n << 0n;
/** A membership's end with removal_behaviour kick (DELETE /guilds/{g}/members/{u}). */
const KICK_MEMBERS = 1n << 1n;
/** A removal that keeps the member out (PUT /guilds/{g}/bans/{u}). */
const BAN_MEMBERS = 1n << 2n;
/** Revoking an unused invite link (DELETE /invites/{code}) and a support ticket's channel. */
const MANAGE_CHANNELS = 1n << 4n;
/** Seeing the gated channels (probes) and the log channel. */
const VIEW_CHANNEL = 1n << 10n;
/** Posts in the log channel (joins, removals, failed role changes). */
const SEND_MESSAGES = 1n << 11n;
/** Giving and taking roles, and a member's own permission overwrite on a gated channel (admit). */
const MANAGE_ROLES = 1n << 28n;
/** Holds every permission: a bot made administrator needs none of the others. */
const ADMINISTRATOR = 1n << 3n;
/** The permissions the install's consent screen asks for (its `permissions` integer). */
export const INSTALL_PERMISSIONS = CREATE_INSTANT_INVITE | KICK_MEMBERS | BAN_MEMBERS | MANAGE_CHANNELS | VIEW_CHANNEL | SEND_MESSAGES | MANAGE_ROLES;
/** Discord's text channel types: a text channel (0) and an announcement channel (5). */
const TEXT_CHANNEL_TYPES = [0, 5];

/** The fields of Discord's role object a probe reads (`permissions` is a bit set as a decimal string). */
interface DiscordRole {
  id: string;
  name?: string;
  position: number;
  permissions: string;
  /** An integration's role (a bot's, the server booster role): Discord lets no one give it. */
  managed?: boolean;
}

/** The bot's standing in a server: the roles there, the permissions its roles give it, its highest role's position. */
interface Standing {
  roles: DiscordRole[];
  permissions: bigint;
  highest: number;
}

/** Whether the standing holds a permission (Administrator holds them all). */
const holds = (standing: Standing, bit: bigint) => (standing.permissions & (bit | ADMINISTRATOR)) !== 0n;

/** Why the bot cannot give `role` (Discord's hierarchy), or null when it can. */
function roleRefusal(role: DiscordRole | undefined, standing: Standing): string | null {
  if (!role) return "the role no longer exists";
  if (role.managed) return "the role is managed by an integration";
  if (!holds(standing, MANAGE_ROLES)) return "the bot lacks Manage Roles";
  if (role.position >= standing.highest) return "the bot's role is not above this role";
  return null;
}

/** A GET made during a probe: its body, or the refusal's words (the verdict, not an error). */
interface Seen {
  body: any;
  reason: string | null;
  kind: string | null;
}

export interface DiscordOptions {
  apiUrl: string;
  timeoutMs: number;
  application: DiscordApplication | null;
  /** Where Discord's rate limits are shared (the process's KV store); this process's own when absent. */
  rateLimits?: DiscordRateLimits;
}

/**
 * Replaces the answer of an interaction that was deferred (type 5): PATCH
 * /webhooks/{application}/{token}/messages/@original, which needs the interaction's token only (no
 * bot token); Discord accepts it for 15 minutes after the interaction.
 */
export async function editInteractionReply(options: DiscordOptions, token: string, content: string): Promise<void> {
  if (!options.application) throw new PlatformError("not_configured", "This deployment has no Discord application.");
  const path = `/webhooks/${encodeURIComponent(options.application.clientId)}/${encodeURIComponent(token)}/messages/@original`;
  const res = await platformCall("Discord", `${options.apiUrl}${path}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content }),
    timeoutMs: options.timeoutMs,
  });
  if (res.status < 200 || res.status >= 300)
    throw new PlatformError(
      "refused",
      `Discord refused the interaction's follow-up: ${typeof res.body?.message === "string" ? res.body.message : `HTTP ${res.status}`}.`,
    );
}

export function discordDriver(options: DiscordOptions): ConnectorDriver {
  const application = () => {
    if (!options.application)
      throw new PlatformError(
        "not_configured",
        "This deployment has no Discord application (DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET, DISCORD_BOT_TOKEN).",
      );
    return options.application;
  };
  const limits = options.rateLimits ?? processRateLimits;
  /** A call as the bot, within Discord's rate limits (a 429 is waited out or thrown as rate_limited); 2xx answers the body, anything else throws. */
  async function asBot(method: string, path: string, body?: unknown): Promise<any> {
    const app = application();
    const res = await limits.call(app.clientId, method, path, () =>
      platformCall("Discord", `${options.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bot ${app.botToken}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        timeoutMs: options.timeoutMs,
      }),
    );
    if (res.status >= 200 && res.status < 300) return res.body;
    // Taking something from a member who already left is done: the role or the membership is gone.
    if (method === "DELETE" && res.status === 404 && res.body?.code === UNKNOWN_MEMBER) return null;
    const message = typeof res.body?.message === "string" ? res.body.message : `HTTP ${res.status}`;
    if (res.status === 401) throw new PlatformError("unauthorized", `Discord refused the application's bot token (${message}).`);
    throw new PlatformError("refused", `Discord refused ${method} ${path}: ${message}.`);
  }
  /** POST /oauth2/token with the application's client credentials: an install's or a member's code, or a refresh. */
  function tokenRequest(params: Record<string, string>) {
    const app = application();
    return platformCall("Discord", `${options.apiUrl}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...params, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
      timeoutMs: options.timeoutMs,
    });
  }
  /** A member's grant from a token answer; a refusal is the member's code or refresh token not accepted. */
  function memberGrant(answer: { status: number; body: any }, what: string): MemberGrant {
    const body = answer.body;
    if (answer.status !== 200 || typeof body?.access_token !== "string") {
      const reason = typeof body?.error_description === "string" ? body.error_description : "it was not accepted";
      throw new PlatformError("unauthorized", `Discord did not accept the ${what} (${reason}).`);
    }
    const seconds = Number(body.expires_in);
    return {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : null,
      expiresAt: new Date(Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000).toISOString(),
      scopes: typeof body.scope === "string" ? body.scope.split(" ") : [],
    };
  }
  /** Discord's consent screen, on the web origin of its API (https://discord.com/oauth2/authorize). */
  function consentUrl(params: Record<string, string>): string {
    const url = new URL("/oauth2/authorize", new URL(options.apiUrl).origin);
    url.search = new URLSearchParams({ client_id: application().clientId, response_type: "code", ...params }).toString();
    return url.toString();
  }
  const signIn: PlatformSignIn = {
    authorizeUrl({ state, redirectUri, purpose = "member" }) {
      const scope = purpose === "identity" ? "identify" : MEMBER_SCOPES.join(" "); // linking an account: who they are, nothing more
      return consentUrl({ scope, redirect_uri: redirectUri, state, prompt: "none" });
    },
    async complete({ code, redirectUri }) {
      const grant = memberGrant(await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: redirectUri }), "sign-in code");
      const me = await platformCall("Discord", `${options.apiUrl}/users/@me`, {
        method: "GET",
        headers: { authorization: `Bearer ${grant.accessToken}` },
        timeoutMs: options.timeoutMs,
      });
      if (me.status !== 200 || typeof me.body?.id !== "string") throw new PlatformError("unauthorized", "Discord did not say who signed in.");
      const name = [me.body.global_name, me.body.username].find((n): n is string => typeof n === "string" && n.length > 0) ?? null;
      return { account: { id: me.body.id, name }, grant };
    },
    async refresh(grant) {
      if (!grant.refreshToken) throw new PlatformError("unauthorized", "The member's Discord sign-in has expired: they sign in again.");
      return memberGrant(await tokenRequest({ grant_type: "refresh_token", refresh_token: grant.refreshToken }), "refresh token");
    },
  };
  return {
    key: "discord",
    signIn,
    installAuthorizeUrl() {
      return options.application ? consentUrl({ scope: INSTALL_SCOPES.join(" "), permissions: String(INSTALL_PERMISSIONS) }) : null;
    },
    async verify(input) {
      if (!input.oauth) throw new PlatformError("unauthorized", "Discord installs through OAuth: send the authorization code.", "oauth.code");
      const exchange = await tokenRequest({ grant_type: "authorization_code", code: input.oauth.code, redirect_uri: input.oauth.redirect_uri });
      const guild = exchange.body?.guild;
      if (exchange.status !== 200 || typeof guild?.id !== "string") {
        const reason = typeof exchange.body?.error_description === "string" ? exchange.body.error_description : "the code was not accepted";
        throw new PlatformError("unauthorized", `Discord did not accept the authorization code (${reason}).`, "oauth.code");
      }
      const bot = await asBot("GET", "/users/@me");
      if (bot?.bot !== true) throw new PlatformError("unauthorized", "DISCORD_BOT_TOKEN does not belong to a bot.");
      return { accountId: guild.id, accountName: typeof guild.name === "string" ? guild.name : guild.id, botUrl: null, portalEntry: true };
    },
    session(installation): PlatformSession {
      const guild = installation.accountId;
      if (!guild) throw new PlatformError("refused", "The installation has no Discord server.");
      const member = (userId: string) => `/guilds/${encodeURIComponent(guild)}/members/${encodeURIComponent(userId)}`;
      // A probe's GET: a refusal (the bot removed, a channel deleted) is the verdict; only an unreachable Discord throws.
      const seen = (path: string): Promise<Seen> =>
        asBot("GET", path).then(
          (body) => ({ body, reason: null, kind: null }),
          (err: unknown) => {
            if (!(err instanceof PlatformError) || (err.kind !== "refused" && err.kind !== "unauthorized")) throw err;
            return { body: null, reason: err.message, kind: err.kind };
          },
        );
      /**
       * The bot's standing: the guild's roles once (for the bot's own), the bot's user and its
       * member there; its permissions come from @everyone and its roles. A refusal is the reason.
       */
      const standing = async (): Promise<Standing | { reason: string }> => {
        const listed = await seen(`/guilds/${encodeURIComponent(guild)}/roles`);
        const bot = listed.reason === null ? await seen("/users/@me") : listed;
        const self = bot.reason === null ? await seen(member(String(bot.body?.id))) : bot;
        if (self.reason !== null || !Array.isArray(listed.body)) return { reason: "the bot cannot read the server's roles" };
        const roles = listed.body as DiscordRole[];
        const byId = new Map<string, DiscordRole>(roles.map((role) => [role.id, role]));
        const own = [guild, ...((self.body?.roles ?? []) as string[])].flatMap((id) => byId.get(id) ?? []);
        const permissions = own.reduce((all, role) => all | BigInt(role.permissions), 0n);
        return { roles, permissions, highest: Math.max(0, ...own.map((role) => role.position)) };
      };
      /**
       * Whether the bot can give each role: its standing, then each gated role read on its own (GET
       * /guilds/{g}/roles/{r}); the role must exist, the bot hold Manage Roles (or Administrator)
       * through @everyone or its roles, and its highest role sit above the role (Discord's hierarchy).
       */
      const probeRoles = async (roles: readonly string[]): Promise<ProbeResult["places"]> => {
        const bot = await standing();
        if ("reason" in bot) return roles.map((place) => ({ place, ok: false, reason: bot.reason }));
        const gated = new Map<string, DiscordRole | undefined>();
        for (const place of roles) {
          const read = await seen(`/guilds/${encodeURIComponent(guild)}/roles/${encodeURIComponent(place)}`);
          gated.set(place, read.reason === null ? (read.body as DiscordRole) : undefined);
        }
        return roles.map((place) => {
          const reason = roleRefusal(gated.get(place), bot);
          return reason === null ? { place, ok: true } : { place, ok: false, reason };
        });
      };
      return {
        async createInviteLink(place, expiry) {
          const body = { max_uses: 1, unique: true, max_age: expiry.seconds };
          const invite = await asBot("POST", `/channels/${encodeURIComponent(place)}/invites`, body);
          return { url: `https://discord.gg/${invite.code}` };
        },
        async revokeInviteLink(_place, link) {
          const code = link.slice(link.lastIndexOf("/") + 1);
          await asBot("DELETE", `/invites/${encodeURIComponent(code)}`);
        },
        async removeMember(_place, userId, { ban = false } = {}) {
          if (ban) await asBot("PUT", `/guilds/${encodeURIComponent(guild)}/bans/${encodeURIComponent(userId)}`, {});
          else await asBot("DELETE", member(userId));
        },
        async admit(place, userId) {
          // type 1: a member overwrite; 1024: VIEW_CHANNEL.
          await asBot("PUT", `/channels/${encodeURIComponent(place)}/permissions/${encodeURIComponent(userId)}`, {
            type: 1,
            allow: "1024",
            deny: "0",
          });
        },
        async unadmit(place, userId) {
          await asBot("DELETE", `/channels/${encodeURIComponent(place)}/permissions/${encodeURIComponent(userId)}`);
        },
        async addRole(userId, roleId) {
          await asBot("PUT", `${member(userId)}/roles/${encodeURIComponent(roleId)}`);
        },
        async removeRole(userId, roleId) {
          await asBot("DELETE", `${member(userId)}/roles/${encodeURIComponent(roleId)}`);
        },
        async postToChannel(channel, text) {
          await asBot("POST", `/channels/${encodeURIComponent(channel)}/messages`, { content: text });
        },
        async listMembers() {
          // List Guild Members, a page at a time in user id order (`after` the last id seen).
          const all: { user: string; roles: string[] }[] = [];
          for (let after = "0"; ;) {
            const page = (await asBot("GET", `/guilds/${encodeURIComponent(guild)}/members?limit=${MEMBERS_PAGE}&after=${after}`)) as {
              user: { id: string };
              roles: string[];
            }[];
            all.push(...page.map((m) => ({ user: m.user.id, roles: m.roles })));
            if (page.length < MEMBERS_PAGE) return all;
            after = page[page.length - 1]!.user.id;
          }
        },
        async sendMessage(user, text) {
          // Every recipient is a member: the message goes to their direct-message channel with the bot.
          const dm = await asBot("POST", "/users/@me/channels", { recipient_id: user });
          if (typeof dm?.id !== "string") throw new PlatformError("refused", "Discord opened no direct-message channel.");
          await asBot("POST", `/channels/${encodeURIComponent(dm.id)}/messages`, { content: text });
        },
        async addMember(userId, grant, roles) {
          // Add Guild Member: 201 with the member when added (with `roles`), 204 with no body when already in.
          const added = await asBot("PUT", member(userId), { access_token: grant.accessToken, ...(roles.length ? { roles: [...roles] } : {}) });
          return added ? "added" : "present";
        },
        async deliverUpdates(target) {
          // Stopping leaves the commands: another project may hold the same server, and an interaction
          // from a server with no installation is answered as such; removing the bot removes them.
          if (target === null) return;
          // A bulk overwrite: the server's commands become exactly these (new ones added, stale ones dropped).
          await asBot(
            "PUT",
            `/applications/${encodeURIComponent(application().clientId)}/guilds/${encodeURIComponent(guild)}/commands`,
            DISCORD_COMMANDS,
          );
        },
        async places(): Promise<PlatformPlace[]> {
          const bot = await standing();
          if ("reason" in bot) throw new PlatformError("refused", `Discord: ${bot.reason}.`);
          const channels = (await asBot("GET", `/guilds/${encodeURIComponent(guild)}/channels`)) as { id: string; type: number; name?: string }[];
          const canInvite = holds(bot, CREATE_INSTANT_INVITE);
          const canRemove = holds(bot, KICK_MEMBERS);
          // A channel's access is the member's permission overwrite, which takes Manage Roles.
          const channelRefusal = holds(bot, MANAGE_ROLES) ? null : "the bot lacks Manage Roles";
          return [
            ...(Array.isArray(channels) ? channels : [])
              .filter((channel) => TEXT_CHANNEL_TYPES.includes(channel.type))
              .map((channel) => ({
                id: channel.id,
                name: channel.name ?? channel.id,
                kind: "channel" as const,
                type: "text_channel" as const,
                canInvite,
                canRemove,
                unmanageable: channelRefusal,
              })),
            // @everyone (the guild's own id) is everybody's, and an integration's role nobody can give.
            ...bot.roles
              .filter((role) => role.id !== guild && !role.managed)
              .map((role) => ({
                id: role.id,
                name: role.name ?? role.id,
                kind: "role" as const,
                type: "role" as const,
                canInvite: false,
                canRemove,
                unmanageable: roleRefusal(role, bot),
              })),
          ];
        },
        async probe(places, { roles = [] } = {}): Promise<ProbeResult> {
          const server = await seen(`/guilds/${encodeURIComponent(guild)}`);
          if (server.reason !== null) {
            const reason =
              server.kind === "unauthorized" ? "Discord refused the application's bot token" : "the bot is no longer in the Discord server";
            return { account: { ok: false, reason }, places: [...places, ...roles].map((place) => ({ place, ok: false, reason })) };
          }
          const results: ProbeResult["places"] = [];
          for (const place of places) {
            const channel = await seen(`/channels/${encodeURIComponent(place)}`);
            // The bot is shared by every installation, so a channel it sees may be another server's.
            if (channel.reason === null && channel.body?.guild_id === guild) results.push({ place, ok: true });
            else
              results.push({
                place,
                ok: false,
                reason:
                  channel.reason === null
                    ? "the channel is not in the installation's server"
                    : "the channel no longer exists or the bot cannot see it",
              });
          }
          if (roles.length) results.push(...(await probeRoles(roles)));
          return { account: { ok: true }, places: results };
        },
      };
    },
  };
}
