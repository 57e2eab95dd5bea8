// The simulated Discord's roles (fake-platform.ts): every server's @everyone and the bot's managed
// role, the roles a test placed, moved or deleted, and Discord's hierarchy rule for giving a role,
// in Discord's wire format. A role no test placed is an ordinary role below the bot's, as on an
// embedded start where nobody places roles. What was placed is kept across an embedded start's restarts.
// Every server also starts with two roles of its own below the bot's (a creator has something to pick).
import { createHash } from "node:crypto";

/** The fake Discord application's bot user, and the managed role Discord gives it in each server. */
export const DISCORD_BOT = { userId: "100000000000000002", roleId: "100000000000000003" };
/** Every server's roles before a test places any: @everyone (id = the guild's) and the bot's. */
const EVERYONE_PERMISSIONS = "104324673";
/** The bot's role: create invites, kick, ban, manage channels, view, send, and Manage Roles (1 << 28). */
const BOT_ROLE_PERMISSIONS = String(1 | 2 | 4 | 16 | 1024 | 2048 | (1 << 28));
const MANAGE_ROLES = 1n << 28n;
const ADMINISTRATOR = 1n << 3n;

/** A snowflake-shaped id that `seed` always gives (a server's, a channel's, a starter role's), so restarts keep them. */
export function stableId(seed: string): string {
  return String(BigInt(`0x${createHash("sha256").update(seed).digest("hex").slice(0, 14)}`) + 100000000000000000n);
}

/** The roles every server has before anyone places one, below the bot's (position 10). */
const STARTER_ROLES = [
  { name: "Supporter", position: 1 },
  { name: "VIP", position: 2 },
];
const starterRoles = (guild: string) => STARTER_ROLES.map((role) => ({ ...role, id: stableId(`${guild}/role/${role.name}`) }));

/** `managed`: an integration's role (another bot's, the booster role), which Discord lets no one give. */
type Placed = { position: number; permissions: string; managed?: boolean };

/** The roles tests placed, per guild, as plain JSON (an embedded start's state file). */
export type PlacedRoles = [string, [string, Placed | null][]][];

/** One role in Discord's wire format. */
function discordRole(guild: string, id: string, role: Placed) {
  const starter = starterRoles(guild).find((r) => r.id === id);
  return {
    id,
    name: id === guild ? "@everyone" : id === DISCORD_BOT.roleId ? "SubBridge" : (starter?.name ?? `role-${id}`),
    color: 0,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions,
    managed: id === DISCORD_BOT.roleId || role.managed === true,
    mentionable: false,
    flags: 0,
    ...(id === DISCORD_BOT.roleId ? { tags: { bot_id: DISCORD_BOT.userId } } : {}),
  };
}

export function createDiscordRoles() {
  /** Per guild, the roles a test placed (null: deleted) over the defaults. */
  const placed = new Map<string, Map<string, Placed | null>>();

  /** The guild's roles (GET /guilds/{g}/roles). */
  function list(guild: string) {
    const roles = new Map<string, Placed | null>([
      [guild, { position: 0, permissions: EVERYONE_PERMISSIONS }],
      [DISCORD_BOT.roleId, { position: 10, permissions: BOT_ROLE_PERMISSIONS }],
      ...starterRoles(guild).map((role): [string, Placed] => [role.id, { position: role.position, permissions: "0" }]),
      ...(placed.get(guild) ?? []),
    ]);
    return [...roles].flatMap(([id, role]) => (role ? [discordRole(guild, id, role)] : []));
  }

  return {
    list,
    /** One role (GET /guilds/{g}/roles/{r}); null when a test deleted it. */
    read(guild: string, role: string) {
      const listed = list(guild).find((r) => r.id === role);
      if (listed) return listed;
      return placed.get(guild)?.has(role) ? null : discordRole(guild, role, { position: 1, permissions: "0" });
    },
    /** The bot's member in the guild (GET /guilds/{g}/members/{bot}). */
    botMember(guild: string) {
      return {
        user: { id: DISCORD_BOT.userId, username: "SubBridge", discriminator: "0", global_name: null, avatar: null, bot: true },
        nick: null,
        avatar: null,
        roles: list(guild).some((r) => r.id === DISCORD_BOT.roleId) ? [DISCORD_BOT.roleId] : [],
        joined_at: "2026-01-01T00:00:00.000000+00:00",
        premium_since: null,
        deaf: false,
        mute: false,
        flags: 0,
        pending: false,
        communication_disabled_until: null,
      };
    },
    /** Why Discord refuses the bot giving or taking a role a test placed (null: it may). */
    refusal(guild: string, role: string): { status: number; message: string; code: number } | null {
      if (!placed.get(guild)?.has(role)) return null;
      const roles = list(guild);
      const target = roles.find((r) => r.id === role);
      if (!target) return { status: 404, message: "Unknown Role", code: 10011 };
      const own = roles.filter((r) => r.id === guild || r.id === DISCORD_BOT.roleId);
      const permissions = own.reduce((all, r) => all | BigInt(r.permissions), 0n);
      const highest = Math.max(...own.map((r) => r.position));
      if ((permissions & (MANAGE_ROLES | ADMINISTRATOR)) === 0n || target.position >= highest || target.managed)
        return { status: 403, message: "Missing Permissions", code: 50013 };
      return null;
    },
    snapshot: (): PlacedRoles => [...placed].map(([guild, roles]) => [guild, [...roles]]),
    restore: (roles: PlacedRoles) => roles.forEach(([guild, list]) => placed.set(guild, new Map(list))),
    /** Places, moves (keeping its permissions unless given) or, with null, deletes a role. */
    place(guild: string, role: string, at: { position: number; permissions?: string; managed?: boolean } | null) {
      const roles = placed.get(guild) ?? new Map<string, Placed | null>();
      const before = list(guild).find((r) => r.id === role);
      roles.set(role, at && { position: at.position, permissions: at.permissions ?? before?.permissions ?? "0", managed: at.managed ?? false });
      placed.set(guild, roles);
    },
  };
}
