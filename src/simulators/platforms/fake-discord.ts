// The simulated Discord of the fake platform (fake-platform.ts): the shared application's OAuth code
// exchange that adds the bot to a server, and the bot's REST calls (servers, channels, roles, member
// roles, bans, channel permissions, invites, messages) in Discord's wire format. It remembers the
// servers it added the bot to and the channels and roles a test placed; `snapshot()` and `restore()`
// carry that as plain JSON for an embedded start's state file. The application's key pair signs the
// interactions it sends (fake-discord-interactions.ts); each server's slash commands are those the
// bot last put there (PUT /applications/{a}/guilds/{g}/commands).
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { createDiscordRoles, DISCORD_BOT, stableId, type PlacedRoles } from "./fake-discord-roles.ts";
import { discordPeople, memberObject, type PeopleSnapshot } from "./fake-discord-people.ts";
import { discordPage } from "./fake-discord-page.ts";
import { createDiscordLimits } from "./fake-discord-limits.ts";
import { createDiscordInteractions } from "./fake-discord-interactions.ts";

type Guild = { id: string; name: string };

/** What the simulated Discord remembers, as plain JSON. */
export interface DiscordSnapshot {
  application: { clientId: string; clientSecret: string; botToken: string; publicKey?: string };
  /** The application's Ed25519 private key (PKCS#8 PEM); absent from a file written before there was one. */
  signingKey?: string;
  /** Each server's commands as the bot last put them (absent from a file written before). */
  commands?: [string, unknown[]][];
  grants: [string, Guild][];
  channelGuilds: [string, string | null][];
  removedGuilds: string[];
  lastGuild: string | null;
  roles: PlacedRoles;
  /** The servers' names (absent from a file written before people could sign in). */
  guildNames?: [string, string][];
  people?: PeopleSnapshot;
}

/** Every server's channels (GET /guilds/{g}/channels): a category, named text channels, an announcement and a voice channel. */
const SERVER_CHANNELS = [
  { name: "Text channels", type: 4 },
  { name: "general", type: 0 },
  { name: "announcements", type: 5 },
  { name: "members-lounge", type: 0 },
  { name: "vip-lounge", type: 0 },
  { name: "Voice", type: 2 },
];

/** A server's channels in Discord's wire format; their ids follow from the server's, so restarts keep them. */
function serverChannels(guild: string) {
  const category = stableId(`${guild}/channel/${SERVER_CHANNELS[0]!.name}`);
  return SERVER_CHANNELS.map((channel, position) => {
    const id = stableId(`${guild}/channel/${channel.name}`);
    return { id, type: channel.type, guild_id: guild, name: channel.name, position, parent_id: id === category ? null : category };
  });
}

/** A call's parameters as recorded: a member's access token never lands in the record. */
const redacted = (params: Record<string, unknown>) => ("access_token" in params ? { ...params, access_token: "[redacted]" } : params);

export function createFakeDiscord(deps: {
  /** Where each call is recorded (the fake platform's record). */
  calls: { push(call: { platform: "discord"; method: string; name: string; bot: null; params: Record<string, unknown> }): unknown };
  /** Any authorization code adds the bot to a server named after it (an embedded start). */
  acceptAny: boolean;
  send(res: ServerResponse, status: number, body?: unknown): void;
  /** The developer portal's Interactions Endpoint URL: where the page's slash commands go. */
  interactionsUrl?: string;
}) {
  const { calls, acceptAny, send } = deps;
  const interactions = createDiscordInteractions(() => application.clientId);
  const application = {
    clientId: "100000000000000001",
    clientSecret: randomBytes(16).toString("hex"),
    botToken: `fake.${randomBytes(24).toString("base64url")}`,
    publicKey: interactions.publicKey(),
  };
  const commands = new Map<string, unknown[]>();
  const grants = new Map<string, Guild>();
  const channelGuilds = new Map<string, string | null>();
  const removedGuilds = new Set<string>();
  const roles = createDiscordRoles();
  const people = discordPeople();
  const guildNames = new Map<string, string>();
  const limits = createDiscordLimits(send);
  let lastGuild: string | null = null;
  const page = discordPage({
    clientId: () => application.clientId,
    people,
    guilds: () => guildNames,
    addAuthorization: (code, guild) => void grants.set(code, guild),
    roles: (guild) => roles.list(guild),
    interactionsUrl: deps.interactionsUrl ?? null,
    commands: (guild) => (commands.get(guild) ?? []) as { name?: unknown; options?: unknown }[],
    sendInteraction: (url, input) => interactions.send(url, input),
    answerOf: (token) => interactions.answerOf(token),
  });
  /** Discord's answer to a member call on a user who is not in the server. */
  const unknownMember = (res: ServerResponse) => send(res, 404, { message: "Unknown Member", code: 10007 });

  async function handle(req: IncomingMessage, path: string, params: Record<string, unknown>, res: ServerResponse) {
    const method = req.method ?? "GET";
    if (await page.handle(req, path, params, res)) return;
    calls.push({ platform: "discord", method, name: path, bot: null, params: redacted(params) });
    if (method === "POST" && path === "/oauth2/token") {
      if (params.client_id !== application.clientId || params.client_secret !== application.clientSecret)
        return send(res, 401, { error: "invalid_client" });
      const code = String(params.code ?? "");
      // A member's sign-in (scope identify): the user's tokens, or a refresh of them.
      if (params.grant_type === "refresh_token" || people.isCode(code)) {
        const answer =
          params.grant_type === "refresh_token" ? people.refresh(String(params.refresh_token ?? "")) : people.exchange(code, params.redirect_uri);
        return answer.ok ? send(res, 200, answer.body) : send(res, 400, { error: "invalid_grant", error_description: answer.error });
      }
      const guild =
        grants.get(code) ??
        (acceptAny && code
          ? {
              id: stableId(code),
              name: "Simulated server",
            }
          : undefined);
      if (!guild) return send(res, 400, { error: "invalid_grant", error_description: 'Invalid "code" in request.' });
      grants.delete(code);
      lastGuild = guild.id;
      guildNames.set(guild.id, guild.name);
      return send(res, 200, {
        access_token: randomBytes(16).toString("hex"),
        token_type: "Bearer",
        expires_in: 604800,
        scope: "bot applications.commands",
        guild,
      });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (bearer && method === "GET" && path === "/users/@me") {
      const user = people.userOfToken(bearer, "identify");
      return user ? send(res, 200, { ...user, discriminator: "0", avatar: null }) : send(res, 401, { message: "401: Unauthorized", code: 0 });
    }
    // An interaction's follow-up is proven by its token alone, as Discord's webhooks are.
    const original = /^\/webhooks\/([0-9]+)\/([^/]+)\/messages\/@original$/.exec(path);
    if (original && method === "PATCH") {
      const message = original[1] === application.clientId ? interactions.editOriginal(original[2]!, params.content) : null;
      return message ? send(res, 200, message) : send(res, 404, { message: "Unknown Webhook", code: 10015 });
    }
    if (req.headers.authorization !== `Bot ${application.botToken}`) return send(res, 401, { message: "401: Unauthorized", code: 0 });
    const route = `${method} ${path.replace(/\/[0-9]+(?=\/|$)/g, "/{id}").replace(/\/invites\/[A-Za-z0-9_-]+$/, "/invites/{code}")}`;
    if (limits.limited(res, route, path)) return;
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
        const named = serverChannels(guild).find((c) => c.id === channel);
        return send(res, 200, named ?? { id: channel, type: 0, guild_id: guild, name: `channel-${channel}` });
      }
      case "GET /guilds/{id}/channels": {
        const guild = path.split("/")[2]!;
        if (removedGuilds.has(guild)) return send(res, 403, { message: "Missing Access", code: 50001 });
        const channels = serverChannels(guild);
        // A listed channel is the server's from then on (a probe of it finds it there).
        for (const channel of channels) if (!channelGuilds.has(channel.id)) channelGuilds.set(channel.id, guild);
        return send(res, 200, channels);
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
        if (user === DISCORD_BOT.userId) return send(res, 200, roles.botMember(guild!));
        const member = people.membership(guild!, user!);
        const known = people.user(user!);
        return member
          ? send(res, 200, memberObject(known ?? { id: user!, username: `user${user!.slice(-4)}`, global_name: null }, member))
          : unknownMember(res);
      }
      case "GET /guilds/{id}/members": {
        const guild = path.split("/")[2]!;
        if (removedGuilds.has(guild)) return send(res, 403, { message: "Missing Access", code: 50001 });
        const after = /^[0-9]+$/.test(String(params.after ?? "")) ? BigInt(String(params.after)) : 0n;
        const limit = Math.min(Math.max(Number(params.limit ?? 1) || 1, 1), 1000);
        return send(
          res,
          200,
          people
            .list(guild)
            .filter((m) => BigInt(m.user.id) > after)
            .slice(0, limit),
        );
      }
      case "PUT /guilds/{id}/members/{id}": {
        // Add Guild Member: the user's own access token with guilds.join, and the roles to give on the way in.
        const [, , guild, , user] = path.split("/") as string[];
        if (removedGuilds.has(guild!)) return send(res, 403, { message: "Missing Access", code: 50001 });
        const owner = people.userOfToken(String(params.access_token ?? ""), "guilds.join");
        if (!owner || owner.id !== user) return send(res, 403, { message: "Invalid OAuth2 access token", code: 50025 });
        const wanted = Array.isArray(params.roles) ? params.roles.map(String) : [];
        for (const role of wanted) {
          const refusal = roles.refusal(guild!, role);
          if (refusal) return send(res, refusal.status, { message: refusal.message, code: refusal.code });
        }
        if (!people.join(guild!, user!, wanted)) return send(res, 204);
        return send(res, 201, memberObject(owner, people.membership(guild!, user!)!));
      }
      case "PUT /guilds/{id}/members/{id}/roles/{id}":
      case "DELETE /guilds/{id}/members/{id}/roles/{id}": {
        const [, , guild, , user, , role] = path.split("/") as string[];
        const refusal = roles.refusal(guild!, role!);
        if (refusal) return send(res, refusal.status, { message: refusal.message, code: refusal.code });
        return people.setRole(guild!, user!, role!, method === "PUT") ? send(res, 204) : unknownMember(res);
      }
      case "DELETE /guilds/{id}/members/{id}": {
        const [, , guild, , user] = path.split("/") as string[];
        people.kick(guild!, user!);
        return send(res, 204);
      }
      case "POST /users/@me/channels": {
        // A DM channel's id is the user's own here, so a message to it reaches that user.
        const recipient = String(params.recipient_id ?? "");
        if (!/^[0-9]{17,20}$/.test(recipient)) return send(res, 400, { message: "Invalid Form Body", code: 50035 });
        return send(res, 200, { id: `9${recipient}`, type: 1, recipients: [{ id: recipient }] });
      }
      case "PUT /guilds/{id}/bans/{id}":
      case "PUT /channels/{id}/permissions/{id}":
      case "DELETE /channels/{id}/permissions/{id}":
        return send(res, 204);
      case "POST /channels/{id}/invites":
        return send(res, 200, { code: randomBytes(5).toString("base64url"), max_uses: params.max_uses ?? 0, max_age: params.max_age ?? 86400 });
      case "DELETE /invites/{code}":
        return send(res, 200, { code: path.slice(path.lastIndexOf("/") + 1) });
      case "POST /channels/{id}/messages": {
        const channel = path.split("/")[2]!;
        if (/^9[0-9]{17,20}$/.test(channel)) people.dm(channel.slice(1), String(params.content ?? ""));
        return send(res, 200, { id: String(Date.now()), channel_id: channel, content: params.content });
      }
      case "PUT /applications/{id}/guilds/{id}/commands": {
        const [, , app, , guild] = path.split("/") as string[];
        if (app !== application.clientId) return send(res, 403, { message: "Missing Access", code: 50001 });
        if (removedGuilds.has(guild!)) return send(res, 403, { message: "Missing Access", code: 50001 });
        // The body is a JSON array, which readParams spreads into an object keyed by index.
        const list = Object.values(params);
        const registered = (list as Record<string, unknown>[]).map((command) => ({
          id: stableId(`${guild}:${String(command.name)}`),
          application_id: application.clientId,
          guild_id: guild,
          version: String(Date.now()),
          default_member_permissions: null,
          nsfw: false,
          options: [],
          ...command,
        }));
        commands.set(guild!, registered);
        return send(res, 200, registered);
      }
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
    people,
    limits,
    sendInteraction: interactions.send,
    signInteraction: interactions.signed,
    interactionAnswer: interactions.answerOf,
    /** The server's commands as the bot last put them (none before an install registers them). */
    commandsOf: (guild: string) => commands.get(guild) ?? [],
    snapshot(): DiscordSnapshot {
      return {
        application,
        signingKey: interactions.snapshot(),
        commands: [...commands],
        grants: [...grants],
        channelGuilds: [...channelGuilds],
        removedGuilds: [...removedGuilds],
        lastGuild,
        roles: roles.snapshot(),
        guildNames: [...guildNames],
        people: people.snapshot(),
      };
    },
    restore(snapshot: DiscordSnapshot) {
      Object.assign(application, snapshot.application);
      interactions.restore(snapshot.signingKey);
      application.publicKey = interactions.publicKey();
      snapshot.commands?.forEach(([guild, list]) => commands.set(guild, list));
      snapshot.grants.forEach(([code, guild]) => grants.set(code, guild));
      snapshot.channelGuilds.forEach(([channel, guild]) => channelGuilds.set(channel, guild));
      snapshot.removedGuilds.forEach((guild) => removedGuilds.add(guild));
      lastGuild = snapshot.lastGuild;
      roles.restore(snapshot.roles);
      snapshot.guildNames?.forEach(([id, name]) => guildNames.set(id, name));
      people.restore(snapshot.people);
    },
  };
}
