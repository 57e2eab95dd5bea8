// The simulated Discord of the fake platform (fake-platform.ts): the shared application's OAuth code
// exchange that adds the bot to a server, and the bot's REST calls (servers, channels, roles, member
// roles, bans, channel permissions, invites, messages) in Discord's wire format. It remembers the
// servers it added the bot to and the channels and roles a test placed; `snapshot()` and `restore()`
// carry that as plain JSON for an embedded start's state file.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHash, randomBytes } from "node:crypto";
import { createDiscordRoles, DISCORD_BOT, type PlacedRoles } from "./fake-discord-roles.ts";

type Guild = { id: string; name: string };

/** What the simulated Discord remembers, as plain JSON. */
export interface DiscordSnapshot {
  application: { clientId: string; clientSecret: string; botToken: string };
  grants: [string, Guild][];
  channelGuilds: [string, string | null][];
  removedGuilds: string[];
  lastGuild: string | null;
  roles: PlacedRoles;
}

export function createFakeDiscord(deps: {
  /** Where each call is recorded (the fake platform's record). */
  calls: { push(call: { platform: "discord"; method: string; name: string; bot: null; params: Record<string, unknown> }): unknown };
  /** Any authorization code adds the bot to a server named after it (an embedded start). */
  acceptAny: boolean;
  send(res: ServerResponse, status: number, body?: unknown): void;
}) {
  const { calls, acceptAny, send } = deps;
  const application = {
    clientId: "100000000000000001",
    clientSecret: randomBytes(16).toString("hex"),
    botToken: `fake.${randomBytes(24).toString("base64url")}`,
  };
  const grants = new Map<string, Guild>();
  const channelGuilds = new Map<string, string | null>();
  const removedGuilds = new Set<string>();
  const roles = createDiscordRoles();
  let lastGuild: string | null = null;

  function handle(req: IncomingMessage, path: string, params: Record<string, unknown>, res: ServerResponse) {
    const method = req.method ?? "GET";
    calls.push({ platform: "discord", method, name: path, bot: null, params });
    if (method === "POST" && path === "/oauth2/token") {
      if (params.client_id !== application.clientId || params.client_secret !== application.clientSecret)
        return send(res, 401, { error: "invalid_client" });
      const code = String(params.code ?? "");
      const guild =
        grants.get(code) ??
        (acceptAny && code
          ? {
              id: String(BigInt(`0x${createHash("sha256").update(code).digest("hex").slice(0, 14)}`) + 100000000000000000n),
              name: "Simulated server",
            }
          : undefined);
      if (!guild) return send(res, 400, { error: "invalid_grant", error_description: 'Invalid "code" in request.' });
      grants.delete(code);
      lastGuild = guild.id;
      return send(res, 200, {
        access_token: randomBytes(16).toString("hex"),
        token_type: "Bearer",
        expires_in: 604800,
        scope: "bot applications.commands",
        guild,
      });
    }
    if (req.headers.authorization !== `Bot ${application.botToken}`) return send(res, 401, { message: "401: Unauthorized", code: 0 });
    const route = `${method} ${path.replace(/\/[0-9]+(?=\/|$)/g, "/{id}").replace(/\/invites\/[A-Za-z0-9_-]+$/, "/invites/{code}")}`;
    switch (route) {
      case "GET /guilds/{id}": {
        const guild = path.split("/")[2]!;
        if (removedGuilds.has(guild)) return send(res, 403, { message: "Missing Access", code: 50001 });
        if (acceptAny) lastGuild = guild;
        return send(res, 200, { id: guild, name: "Simulated server" });
      }
      case "GET /channels/{id}": {
        const channel = path.split("/")[2]!;
        // With acceptAny (an embedded start), a channel never named belongs to the server the bot was
        // added to or looked at last: a probe reads its server first, so each installation's channels
        // are its own, and a restart's new simulation, which saw no server added, still places them.
        const guild = channelGuilds.has(channel) ? channelGuilds.get(channel) : acceptAny ? lastGuild : null;
        if (!guild || removedGuilds.has(guild)) return send(res, 404, { message: "Unknown Channel", code: 10003 });
        return send(res, 200, { id: channel, type: 0, guild_id: guild, name: `channel-${channel}` });
      }
      case "GET /users/@me":
        return send(res, 200, { id: DISCORD_BOT.userId, username: "SubBridge", discriminator: "0", bot: true });
      case "GET /guilds/{id}/roles": {
        const guild = path.split("/")[2]!;
        if (removedGuilds.has(guild)) return send(res, 403, { message: "Missing Access", code: 50001 });
        return send(res, 200, roles.list(guild));
      }
      case "GET /guilds/{id}/roles/{id}": {
        const [, , guild, , role] = path.split("/") as string[];
        if (removedGuilds.has(guild!)) return send(res, 403, { message: "Missing Access", code: 50001 });
        const found = roles.read(guild!, role!);
        return found ? send(res, 200, found) : send(res, 404, { message: "Unknown Role", code: 10011 });
      }
      case "GET /guilds/{id}/members/{id}": {
        const [, , guild, , user] = path.split("/") as string[];
        if (removedGuilds.has(guild!)) return send(res, 403, { message: "Missing Access", code: 50001 });
        if (user !== DISCORD_BOT.userId) return send(res, 404, { message: "Unknown Member", code: 10007 });
        return send(res, 200, roles.botMember(guild!));
      }
      case "PUT /guilds/{id}/members/{id}/roles/{id}":
      case "DELETE /guilds/{id}/members/{id}/roles/{id}": {
        const [, , guild, , , , role] = path.split("/") as string[];
        const refusal = roles.refusal(guild!, role!);
        if (refusal) return send(res, refusal.status, { message: refusal.message, code: refusal.code });
        return send(res, 204);
      }
      case "PUT /guilds/{id}/bans/{id}":
      case "DELETE /guilds/{id}/members/{id}":
      case "PUT /channels/{id}/permissions/{id}":
      case "DELETE /channels/{id}/permissions/{id}":
        return send(res, 204);
      case "POST /channels/{id}/invites":
        return send(res, 200, { code: randomBytes(5).toString("base64url"), max_uses: params.max_uses ?? 0, max_age: params.max_age ?? 86400 });
      case "DELETE /invites/{code}":
        return send(res, 200, { code: path.slice(path.lastIndexOf("/") + 1) });
      case "POST /channels/{id}/messages":
        return send(res, 200, { id: String(Date.now()), channel_id: path.split("/")[2], content: params.content });
      default:
        return send(res, 404, { message: "404: Not Found", code: 0 });
    }
  }

  return {
    application,
    handle,
    addAuthorization: (code: string, guild: Guild) => void grants.set(code, guild),
    setChannel: (channel: string, guild: string | null) => void channelGuilds.set(channel, guild),
    removeBot: (guild: string) => void removedGuilds.add(guild),
    setRole: roles.place,
    snapshot(): DiscordSnapshot {
      return {
        application,
        grants: [...grants],
        channelGuilds: [...channelGuilds],
        removedGuilds: [...removedGuilds],
        lastGuild,
        roles: roles.snapshot(),
      };
    },
    restore(snapshot: DiscordSnapshot) {
      Object.assign(application, snapshot.application);
      snapshot.grants.forEach(([code, guild]) => grants.set(code, guild));
      snapshot.channelGuilds.forEach(([channel, guild]) => channelGuilds.set(channel, guild));
      snapshot.removedGuilds.forEach((guild) => removedGuilds.add(guild));
      lastGuild = snapshot.lastGuild;
      roles.restore(snapshot.roles);
    },
  };
}
