// The start payload of a connector deep link (<bot_url>?start=<payload>), read exactly as the
// service description orders it, for connector bots built on @subbridge/sdk/connector:
//   1. auth_<token>   the portal's sign-in handoff (internal)
//   2. -<command>     an admin command: the name prefixed with a hyphen, each argument joined
//                     with "_-"; the payload is split on underscores, so only names without one
//                     are reachable (effective only for a project admin: the bot checks that)
//   3. a bare UUID    looked up as a plan id of the project, then tried as an access code
//   4. anything else  ignored: the home screen opens (project_<uuid>, custom payloads, key=value)

/** What a start payload asks the bot to do. */
export type StartPayload =
  /** The portal hands a signed-in session to the bot; `token` is opaque to the connector. */
  | { kind: "auth"; token: string }
  /** An admin command, e.g. `-ban_-<user_id>_-confirm` → {name: "ban", args: [<user_id>, "confirm"]}. */
  | { kind: "command"; name: string; args: string[] }
  /** A bare UUID: look it up as a plan id of the project first, then try it as an access code. */
  | { kind: "uuid"; value: string }
  /** Nothing to act on: open the home screen. */
  | { kind: "home" };

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const AUTH_PREFIX = "auth_";
const HOME: StartPayload = { kind: "home" };

/**
 * Reads a start payload. `payload` is the value of `start` (Telegram's /start argument, or the
 * query parameter); null or undefined (no payload) opens the home screen.
 */
export function readStartPayload(payload: string | null | undefined): StartPayload {
  if (!payload) return HOME;
  if (payload.startsWith(AUTH_PREFIX)) {
    const token = payload.slice(AUTH_PREFIX.length);
    return token ? { kind: "auth", token } : HOME;
  }
  if (payload.startsWith("-")) return readCommand(payload.slice(1));
  if (UUID.test(payload)) return { kind: "uuid", value: payload };
  return HOME;
}

/** `<name>_-<arg>_-<arg>…`: split on underscores, every part after the name starts with "-". */
function readCommand(body: string): StartPayload {
  const [name, ...rest] = body.split("_");
  if (!name || name.startsWith("-")) return HOME;
  const args: string[] = [];
  for (const part of rest) {
    // A part without its hyphen is not an argument: the name itself held an underscore (such
    // commands are unreachable by link) or the payload was not built by the join rule.
    if (!part.startsWith("-") || part.length === 1) return HOME;
    args.push(part.slice(1));
  }
  return { kind: "command", name, args };
}

/**
 * The start payload of an admin command (the reverse of readStartPayload): `ban`, [id, "confirm"]
 * → `-ban_-<id>_-confirm`. Throws for a name or argument that the payload could not carry back:
 * empty, or holding an underscore (the payload is split on underscores).
 */
export function commandStartPayload(name: string, args: readonly string[] = []): string {
  for (const [what, value] of [["command name", name], ...args.map((a, i) => [`argument ${i + 1}`, a] as const)] as const) {
    if (!value) throw new RangeError(`the ${what} is empty`);
    if (value.includes("_")) throw new RangeError(`the ${what} "${value}" holds an underscore, which a start payload cannot carry`);
  }
  if (name.startsWith("-")) throw new RangeError(`the command name "${name}" starts with a hyphen; give it without one`);
  return [`-${name}`, ...args.map((a) => `-${a}`)].join("_");
}
