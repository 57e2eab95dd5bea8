// The people of the simulated Discord (fake-discord.ts): the users who authorized the application
// on its OAuth2 page, their authorization codes and access tokens (scopes identify, guilds.join),
// who is a member of which server with which roles, and the bot's direct messages to them. A user
// the simulation never met (a member row a test wrote with any id) counts as present in every
// server, as the simulation always treated them; a user who signed in through the page is in a
// server only once the bot added them (Add Guild Member) and until they are kicked.
import { randomBytes } from "node:crypto";
import { stableId } from "./fake-discord-roles.ts";

export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
}

/** A member of a server: the roles they hold besides @everyone. */
interface Membership {
  roles: string[];
  joined_at: string;
}

/** A message the bot sent to a user's DM channel. */
export interface DirectMessage {
  user: string;
  content: string;
  at: string;
}

/** What the people remember, as plain JSON (an embedded start's state file). */
export interface PeopleSnapshot {
  users: DiscordUser[];
  codes: [string, { user: string; scopes: string[]; redirectUri: string }][];
  tokens: [string, { user: string; scopes: string[]; refresh: boolean }][];
  members: [string, [string, Membership][]][];
  dms: DirectMessage[];
}

export function discordPeople() {
  const users = new Map<string, DiscordUser>();
  const codes = new Map<string, { user: string; scopes: string[]; redirectUri: string }>();
  /** Access tokens and refresh tokens alike (refresh: true), each to its user and scopes. */
  const tokens = new Map<string, { user: string; scopes: string[]; refresh: boolean }>();
  const members = new Map<string, Map<string, Membership>>();
  const dms: DirectMessage[] = [];

  const guildMembers = (guild: string) => members.get(guild) ?? members.set(guild, new Map()).get(guild)!;
  /** The user's membership of the server; an unmet user is present with no role until a role call records them. */
  function membership(guild: string, user: string): Membership | null {
    const known = members.get(guild)?.get(user);
    if (known) return known;
    if (users.has(user)) return null;
    const implied = { roles: [], joined_at: new Date().toISOString() };
    guildMembers(guild).set(user, implied);
    return implied;
  }
  function issueTokens(user: string, scopes: string[]) {
    const access = randomBytes(18).toString("base64url");
    const refresh = randomBytes(18).toString("base64url");
    tokens.set(access, { user, scopes, refresh: false });
    tokens.set(refresh, { user, scopes, refresh: true });
    return { access_token: access, token_type: "Bearer", expires_in: 604800, refresh_token: refresh, scope: scopes.join(" ") };
  }

  return {
    /** A person authorizing on the page: the user by id (or a new one from the name), and a single-use code. */
    authorize(person: { id: string | null; name: string }, scopes: string[], redirectUri: string): string {
      const id = person.id ?? stableId(`user:${person.name}`);
      users.set(id, { id, username: person.name.toLowerCase().replace(/[^a-z0-9_.]/g, "") || `user${id.slice(-4)}`, global_name: person.name });
      const code = randomBytes(15).toString("base64url");
      codes.set(code, { user: id, scopes, redirectUri });
      return code;
    },
    /** The code exchange (grant_type authorization_code): the tokens, or why Discord refuses. */
    exchange(code: string, redirectUri: unknown): { ok: true; body: unknown } | { ok: false; error: string } {
      const grant = codes.get(code);
      if (!grant) return { ok: false, error: 'Invalid "code" in request.' };
      if (redirectUri !== grant.redirectUri) return { ok: false, error: 'Invalid "redirect_uri" in request.' };
      codes.delete(code);
      return { ok: true, body: issueTokens(grant.user, grant.scopes) };
    },
    /** A refresh (grant_type refresh_token): the old refresh token stops working. */
    refresh(token: string): { ok: true; body: unknown } | { ok: false; error: string } {
      const grant = tokens.get(token);
      if (!grant?.refresh) return { ok: false, error: "Invalid refresh_token" };
      tokens.delete(token);
      return { ok: true, body: issueTokens(grant.user, grant.scopes) };
    },
    isCode: (code: string) => codes.has(code),
    /** The user an access token belongs to (GET /users/@me with Bearer), null when it is unknown. */
    userOfToken(token: string, scope?: string): DiscordUser | null {
      const grant = tokens.get(token);
      if (!grant || grant.refresh || (scope && !grant.scopes.includes(scope))) return null;
      return users.get(grant.user) ?? null;
    },
    user: (id: string) => users.get(id) ?? null,
    membership,
    /** Add Guild Member: true when the user was added, false when already a member. */
    join(guild: string, user: string, roles: string[]): boolean {
      if (membership(guild, user)) return false;
      guildMembers(guild).set(user, { roles: [...new Set(roles)], joined_at: new Date().toISOString() });
      return true;
    },
    /** A kick: the user is out of the server (a met user is then refused role calls; an unmet one counts as present again). */
    kick(guild: string, user: string) {
      members.get(guild)?.delete(user);
    },
    setRole(guild: string, user: string, role: string, held: boolean): boolean {
      const member = membership(guild, user);
      if (!member) return false;
      member.roles = held ? [...new Set([...member.roles, role])] : member.roles.filter((r) => r !== role);
      return true;
    },
    /** The server's members in Discord's member shape, by user id. */
    list(guild: string) {
      return [...(members.get(guild) ?? [])]
        .sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1))
        .map(([id, m]) => memberObject(users.get(id) ?? { id, username: `user${id.slice(-4)}`, global_name: null }, m));
    },
    guilds: () => [...members.keys()],
    users: () => [...users.values()],
    dm(user: string, content: string) {
      dms.push({ user, content, at: new Date().toISOString() });
    },
    dms: (user?: string) => dms.filter((m) => user === undefined || m.user === user),
    snapshot: (): PeopleSnapshot => ({
      users: [...users.values()],
      codes: [...codes],
      tokens: [...tokens],
      members: [...members].map(([guild, list]) => [guild, [...list]]),
      dms: [...dms],
    }),
    restore(snapshot: PeopleSnapshot | undefined) {
      if (!snapshot) return;
      snapshot.users.forEach((u) => users.set(u.id, u));
      snapshot.codes.forEach(([code, grant]) => codes.set(code, grant));
      snapshot.tokens.forEach(([token, grant]) => tokens.set(token, grant));
      snapshot.members.forEach(([guild, list]) => members.set(guild, new Map(list)));
      dms.push(...snapshot.dms);
    },
  };
}

export type DiscordPeople = ReturnType<typeof discordPeople>;

/** Discord's guild member object. */
export function memberObject(user: DiscordUser, member: Membership) {
  return {
    user: { id: user.id, username: user.username, global_name: user.global_name, discriminator: "0", avatar: null },
    nick: null,
    avatar: null,
    roles: member.roles,
    joined_at: member.joined_at,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}
