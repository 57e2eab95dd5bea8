// The Discord connector's driver. Discord installs through OAuth (manifest mode oauth): the creator
// adds the platform's shared Discord application to a server in Discord's consent screen, and the
// dashboard sends the authorization code it got back. Install exchanges the code
// (POST /oauth2/token with the application's client id and secret): Discord answers the guild the
// bot was added to, which becomes the installation's platform account; GET /users/@me with the bot
// token checks the application's bot itself. The bot token is the deployment's (DISCORD_BOT_TOKEN),
// so an installation stores no credential. Discord has no start-payload links: bot_url is null.
import { PlatformError, platformCall, type ConnectorDriver, type PlatformSession, type ProbeResult } from "./driver.ts";

/** Discord's permission bits that let the bot give roles. */
const MANAGE_ROLES = 1n << 28n;
const ADMINISTRATOR = 1n << 3n;

/** The fields of Discord's role object a probe reads (`permissions` is a bit set as a decimal string). */
interface DiscordRole {
  id: string;
  position: number;
  permissions: string;
  /** An integration's role (a bot's, the server booster role): Discord lets no one give it. */
  managed?: boolean;
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
  application: { clientId: string; clientSecret: string; botToken: string } | null;
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
  /** A call as the bot; 2xx answers the body, anything else throws. */
  async function asBot(method: string, path: string, body?: unknown): Promise<any> {
    const res = await platformCall("Discord", `${options.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bot ${application().botToken}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      timeoutMs: options.timeoutMs,
    });
    if (res.status >= 200 && res.status < 300) return res.body;
    const message = typeof res.body?.message === "string" ? res.body.message : `HTTP ${res.status}`;
    if (res.status === 401) throw new PlatformError("unauthorized", `Discord refused the application's bot token (${message}).`);
    if (res.status === 429) {
      const seconds = Number(res.body?.retry_after);
      const waitMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
      throw new PlatformError("rate_limited", `Discord asked to wait before ${method} ${path} (${message}).`, null, message, waitMs);
    }
    throw new PlatformError("refused", `Discord refused ${method} ${path}: ${message}.`);
  }
  return {
    key: "discord",
    async verify(input) {
      if (!input.oauth) throw new PlatformError("unauthorized", "Discord installs through OAuth: send the authorization code.", "oauth.code");
      const app = application();
      const exchange = await platformCall("Discord", `${options.apiUrl}/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: input.oauth.code,
          redirect_uri: input.oauth.redirect_uri,
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }).toString(),
        timeoutMs: options.timeoutMs,
      });
      const guild = exchange.body?.guild;
      if (exchange.status !== 200 || typeof guild?.id !== "string") {
        const reason = typeof exchange.body?.error_description === "string" ? exchange.body.error_description : "the code was not accepted";
        throw new PlatformError("unauthorized", `Discord did not accept the authorization code (${reason}).`, "oauth.code");
      }
      const bot = await asBot("GET", "/users/@me");
      if (bot?.bot !== true) throw new PlatformError("unauthorized", "DISCORD_BOT_TOKEN does not belong to a bot.");
      return { accountId: guild.id, accountName: typeof guild.name === "string" ? guild.name : guild.id, botUrl: null };
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
       * Whether the bot can give each role: the guild's roles once (for the bot's own), the bot's
       * user and its member there, then each gated role read on its own (GET
       * /guilds/{g}/roles/{r}); the role must exist, the bot hold Manage Roles (or Administrator)
       * through @everyone or its roles, and its highest role sit above the role (Discord's hierarchy).
       */
      const probeRoles = async (roles: readonly string[]): Promise<ProbeResult["places"]> => {
        const listed = await seen(`/guilds/${encodeURIComponent(guild)}/roles`);
        const bot = listed.reason === null ? await seen("/users/@me") : listed;
        const self = bot.reason === null ? await seen(member(String(bot.body?.id))) : bot;
        if (self.reason !== null || !Array.isArray(listed.body)) {
          const reason = "the bot cannot read the server's roles";
          return roles.map((place) => ({ place, ok: false, reason }));
        }
        const byId = new Map<string, DiscordRole>((listed.body as DiscordRole[]).map((role) => [role.id, role]));
        const own = [guild, ...((self.body?.roles ?? []) as string[])].flatMap((id) => byId.get(id) ?? []);
        const permissions = own.reduce((all, role) => all | BigInt(role.permissions), 0n);
        const canManage = (permissions & (MANAGE_ROLES | ADMINISTRATOR)) !== 0n;
        const highest = Math.max(0, ...own.map((role) => role.position));
        const gated = new Map<string, DiscordRole | undefined>();
        for (const place of roles) {
          const read = await seen(`/guilds/${encodeURIComponent(guild)}/roles/${encodeURIComponent(place)}`);
          gated.set(place, read.reason === null ? (read.body as DiscordRole) : undefined);
        }
        return roles.map((place) => {
          const role = gated.get(place);
          const reason = !role
            ? "the role no longer exists"
            : role.managed
              ? "the role is managed by an integration"
              : !canManage
                ? "the bot lacks Manage Roles"
                : role.position >= highest
                  ? "the bot's role is not above this role"
                  : null;
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
        async sendMessage(chat, text) {
          await asBot("POST", `/channels/${encodeURIComponent(chat)}/messages`, { content: text });
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
