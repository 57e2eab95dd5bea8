// The simulated Discord's interactions (fake-discord.ts): it holds the application's Ed25519 key
// pair, as Discord does, and posts a member's slash command (or a PING) to an interactions endpoint
// signed the way Discord signs (X-Signature-Ed25519 over X-Signature-Timestamp + the raw body). Each
// interaction has a token; PATCH /webhooks/{application}/{token}/messages/@original edits its answer
// (a deferred one's follow-up) and is refused for a token it never issued, as Discord refuses one.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

/** A person on the simulated Discord using a command (a server member unless `guild_id` is null: a DM). */
export interface SimulatedInteraction {
  /** 2: a slash command (the default); 1: a PING, as Discord sends when the endpoint URL is saved. */
  type?: 1 | 2;
  /** The command's name, without the slash. */
  command?: string;
  /** The command's options by name: a number is an integer option, anything else a string. */
  options?: Record<string, string | number>;
  /** The server it was used in; null for a DM with the bot. */
  guild_id?: string | null;
  user?: { id: string; username: string; global_name?: string | null };
}

export interface SentInteraction {
  /** The endpoint's HTTP status and its JSON answer (null when it was not JSON). */
  status: number;
  body: unknown;
  /** The interaction's token (a deferred answer's follow-up is PATCHed with it). */
  token: string;
}

/** The raw 32-byte public key as hex (the developer portal's "Public Key"). */
const publicKeyHex = (key: KeyObject) => Buffer.from(createPublicKey(key).export({ format: "jwk" }).x!, "base64url").toString("hex");

const snowflake = () => String(BigInt(Date.now() - 1420070400000) * 4194304n + BigInt(randomBytes(2).readUInt16BE()));

export function createDiscordInteractions(applicationId: () => string) {
  let signingKey = generateKeyPairSync("ed25519").privateKey;
  /** Each token issued, with the last content written to its answer (null until one is). */
  const answers = new Map<string, string | null>();

  function payload(input: SimulatedInteraction, token: string) {
    const user = {
      id: input.user?.id ?? "200000000000000001",
      username: input.user?.username ?? "member",
      global_name: input.user?.global_name ?? null,
      discriminator: "0",
      avatar: null,
    };
    const guild = input.guild_id ?? null;
    const base = { id: snowflake(), application_id: applicationId(), token, version: 1, locale: "en-US", entitlements: [] };
    if (input.type === 1) return { ...base, type: 1 };
    const options = Object.entries(input.options ?? {}).map(([name, value]) => ({ name, type: typeof value === "number" ? 4 : 3, value }));
    return {
      ...base,
      type: 2,
      data: { id: snowflake(), name: input.command ?? "", type: 1, ...(options.length ? { options } : {}), ...(guild ? { guild_id: guild } : {}) },
      channel_id: snowflake(),
      context: guild ? 0 : 1,
      app_permissions: "0",
      ...(guild
        ? { guild_id: guild, member: { user, roles: [], nick: null, joined_at: "2026-01-01T00:00:00.000000+00:00", permissions: "0", flags: 0 } }
        : { user }),
    };
  }

  /** The headers Discord sends with `body`: the signature over the timestamp (Unix seconds) and the bytes. */
  function signed(body: Buffer | string, timestamp = Math.floor(Date.now() / 1000)) {
    const at = String(timestamp);
    const signature = sign(null, Buffer.concat([Buffer.from(at), Buffer.from(body)]), signingKey).toString("hex");
    return { "x-signature-ed25519": signature, "x-signature-timestamp": at };
  }

  return {
    publicKey: () => publicKeyHex(signingKey),
    signed,
    /** Posts the interaction to `url` signed with the application's key, as Discord does; `timestamp` (Unix seconds) for a stale one. */
    async send(url: string, input: SimulatedInteraction, options: { timestamp?: number } = {}): Promise<SentInteraction> {
      const token = `aW50ZXJhY3Rpb24.${randomBytes(24).toString("base64url")}`;
      answers.set(token, null);
      const body = JSON.stringify(payload(input, token));
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Discord-Interactions/1.0 (+https://discord.com)",
          ...signed(body, options.timestamp),
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      let answer: unknown = null;
      try {
        answer = JSON.parse(text);
      } catch {
        answer = null;
      }
      return { status: res.status, body: answer, token };
    },
    /** PATCH .../messages/@original: the message as Discord answers it, or null for a token never issued. */
    editOriginal(token: string, content: unknown) {
      if (!answers.has(token)) return null;
      answers.set(token, typeof content === "string" ? content : "");
      return { id: snowflake(), type: 20, content: answers.get(token), channel_id: snowflake(), flags: 64, application_id: applicationId() };
    },
    /** The last content written to the interaction's answer through its token (null: none yet or unknown). */
    answerOf: (token: string) => answers.get(token) ?? null,
    /** The private key as PKCS#8 PEM (an embedded start's state file keeps the application's key pair). */
    snapshot: () => signingKey.export({ format: "pem", type: "pkcs8" }).toString(),
    restore(pem: string | undefined) {
      if (pem) signingKey = createPrivateKey(pem);
    },
  };
}
