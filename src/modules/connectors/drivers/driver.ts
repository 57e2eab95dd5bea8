// One driver per connector, behind one interface: how SubBridge reaches the connector's platform
// (Telegram's Bot API, Discord's HTTP API). Install verifies the credentials through `verify`; the
// session of an installation does what the access ledger needs on the platform. Every call has a
// time-out; the base URLs are settings (PlatformConfig), so tests and an embedded start talk to the
// local fake platform (src/simulators/platforms/) instead of an outside host.

/** What the install request carried for the driver (already checked against the manifest). */
export interface InstallInput {
  /** The manifest's install `fields` values (e.g. Telegram's bot_token). */
  fields: Readonly<Record<string, string | boolean>>;
  /** The result of the platform's OAuth flow, for connectors installed through OAuth. */
  oauth: { code: string; redirect_uri: string } | null;
}

/** The platform account an install verified. */
export interface VerifiedAccount {
  /** The installation's account on the platform: a Telegram bot's id, a Discord guild's id. */
  accountId: string;
  accountName: string;
  /** Where members open the installation with a start payload (Telegram: https://t.me/<bot>); null when the platform has none. */
  botUrl: string | null;
  /** Members enter through the portal's sign-in with the platform (Discord): the installation's bot_url is then its portal entry. */
  portalEntry?: boolean;
}

/** An invite link made for one member (single use). */
export interface InviteLink {
  url: string;
}

/** How long an invite link admits: an absolute end (Telegram's expire_date) and the same as seconds from now (Discord's max_age). */
export interface InviteLinkExpiry {
  expiresAt: Date;
  seconds: number;
}

/** What the access ledger does on the platform, for one installation. */
export interface PlatformSession {
  /**
   * A single-use invite link to `place` (a Telegram chat id, a Discord channel id) that stops admitting at `expiry`;
   * with `joinRequest` (a place under an early admission hold, Telegram) a link whose users ask to join and wait for answerJoinRequest.
   */
  createInviteLink(place: string, expiry: InviteLinkExpiry, options?: { joinRequest?: boolean }): Promise<InviteLink>;
  /** Approves or declines a user's request to join `place` (Telegram's chat_join_request); absent where the platform has none. */
  answerJoinRequest?(place: string, userId: string, approve: boolean): Promise<void>;
  revokeInviteLink(place: string, link: string): Promise<void>;
  /** Removes a member from `place` (Telegram: a chat; Discord: the installation's guild); `ban` keeps them out. */
  removeMember(place: string, userId: string, options?: { ban?: boolean }): Promise<void>;
  /**
   * Lets a member into a private place they can already reach (a Discord channel of the
   * installation's server: their own permission overwrite), or takes that away.
   */
  admit(place: string, userId: string): Promise<void>;
  unadmit(place: string, userId: string): Promise<void>;
  /** Gives or takes a role (platforms with roles: Discord, in the installation's guild). */
  addRole(userId: string, roleId: string): Promise<void>;
  removeRole(userId: string, roleId: string): Promise<void>;
  /** A message to a member (Telegram: their private chat with the bot, whose id is theirs; Discord: a direct message). */
  sendMessage(user: string, text: string): Promise<void>;
  /** A message to a channel of the installation's server (Discord's log channel); absent where the bot only writes to people. */
  postToChannel?(channel: string, text: string): Promise<void>;
  /** Every member of the installation's server with the roles they hold (platforms with roles: Discord); drift repair reads it. */
  listMembers?(): Promise<{ user: string; roles: string[] }[]>;
  /**
   * Platforms a member joins through the platform's own sign-in (Discord's Add Guild Member): adds
   * the member to the installation's server with `roles`, answering "present" (and giving no role)
   * when they were already in. Absent where members join through invite links (Telegram).
   */
  addMember?(userId: string, grant: MemberGrant, roles: readonly string[]): Promise<"added" | "present">;
  /**
   * Checks the installation still works (recovery probes): its account (Telegram: the bot's token;
   * Discord: the bot still in the server), each of `places` (the bot there with the rights access
   * needs) and each of `roles` (platforms with roles: the role exists and the bot can give it); the
   * answer lists the places, then the roles. A refusal is a verdict in the answer; only an
   * unreachable platform throws.
   */
  probe(places: readonly string[], options?: { roles?: readonly string[] }): Promise<ProbeResult>;
  /**
   * Platforms that push a bot's updates (Telegram's webhook): deliver them to `url`, proven by
   * `secret`; `null` stops the delivery. Discord pushes to the application's one interactions
   * endpoint, proven by its own key: there it registers the server's slash commands and ignores the
   * target. Absent where the platform has no such push.
   */
  deliverUpdates?(target: { url: string; secret: string } | null): Promise<void>;
  /**
   * Platforms with a bot command menu (Telegram's setMyCommands): the commands offered in `chat` (a
   * person's private chat with the bot), or in every private chat when null. Absent elsewhere
   * (Discord registers its slash commands with deliverUpdates).
   */
  setCommands?(commands: readonly { command: string; description: string }[], chat: string | null): Promise<void>;
  /** The platform's own payments (Telegram Stars); absent where the platform has none (Discord). */
  readonly payments?: PlatformPayments;
  /**
   * Platforms whose places can be asked for (Discord: the server's text channels and roles): each
   * with whether the bot can grant and take access there now. Absent where the platform has no
   * such call (Telegram's chats are learned from updates instead). Throws only when the platform
   * cannot be reached or refuses the bot.
   */
  places?(): Promise<PlatformPlace[]>;
}

/** A place of an installation's account the bot can gate (platform_ref `id`), as the platform answers now. */
export interface PlatformPlace {
  id: string;
  name: string;
  /** The resource kind (after the connector key) a resource gating it takes. */
  kind: "channel" | "role";
  /** The platform's own type: text_channel, role. */
  type: "text_channel" | "role";
  canInvite: boolean;
  canRemove: boolean;
  /** Null when the bot can grant and take access there; else why not, in a creator's words. */
  unmanageable: string | null;
}

/** What a probe found: a failing account or place carries the reason, in words a creator can act on. */
export interface ProbeResult {
  account: { ok: boolean; reason?: string };
  /** The places probed, then the roles (`place` is then the role's id). */
  places: { place: string; ok: boolean; reason?: string }[];
}

/** An invoice in the platform's own currency (Telegram Stars: whole stars, one price). */
export interface NativeInvoice {
  /** 1-32 characters. */
  title: string;
  /** 1-255 characters. */
  description: string;
  /** 1-128 bytes, never shown to the member: what the bot reads back in the pre-checkout query and the payment. */
  payload: string;
  /** A positive whole number of stars. */
  amount: number;
  /** The price's label; the title when absent. */
  label?: string;
}

/** The platform's native payments, for one installation's bot. */
export interface PlatformPayments {
  /** An invoice link; `subscriptionPeriod` (seconds; Telegram takes only 2592000) makes it a subscription that renews each period. */
  createInvoiceLink(invoice: NativeInvoice & { subscriptionPeriod?: number }): Promise<string>;
  /** An invoice message in a chat (a one-off payment: Telegram's sendInvoice has no subscription period). */
  sendInvoice(chat: string, invoice: NativeInvoice): Promise<void>;
  /** The answer to a pre-checkout query (Telegram waits 10 s); a refusal's `errorMessage` is shown to the member. */
  answerPreCheckoutQuery(queryId: string, answer: { ok: true } | { ok: false; errorMessage: string }): Promise<void>;
  /** Gives a payment back to the member who made it. */
  refund(userId: string, chargeId: string): Promise<void>;
  /** Stops (`canceled`) or allows again the renewal of a member's subscription, named by one of its charges. */
  setSubscriptionCanceled(userId: string, chargeId: string, canceled: boolean): Promise<void>;
  /** One page (at most `limit`, 1-100) of the bot's transactions from `offset`, oldest first (Telegram's getStarTransactions). */
  transactions(page: { offset: number; limit: number }): Promise<NativeTransaction[]>;
}

/** A movement of the bot's platform currency: in (a member's payment) or out (a refund to a member, a withdrawal). */
export interface NativeTransaction {
  /** The charge id; a refund carries the id of the payment it gives back. */
  id: string;
  direction: "in" | "out";
  amount: number;
  /** Unix seconds. */
  date: number;
  /** The member's platform id; null for a transaction with no member (another partner type). */
  userId: string | null;
  payload: string | null;
  /** Set on a subscription's payments (seconds). */
  subscriptionPeriod: number | null;
}

/** What a member granted the application on signing in through the platform (an OAuth2 access token). */
export interface MemberGrant {
  accessToken: string;
  refreshToken: string | null;
  /** ISO 8601. */
  expiresAt: string;
  scopes: string[];
}

/** A member's sign-in through the platform's OAuth2 (Discord): the portal's way in for platforms with no start links. */
export interface PlatformSignIn {
  /**
   * The platform's consent screen, answering `redirectUri` with a code and `state`. It asks for a
   * member's sign-in scopes, or with `purpose` "identity" only who the person is (a creator linking
   * their account grants the service nothing else).
   */
  authorizeUrl(input: { state: string; redirectUri: string; purpose?: "member" | "identity" }): string;
  /** The code's exchange: the member's platform account and what they granted. */
  complete(input: { code: string; redirectUri: string }): Promise<{ account: { id: string; name: string | null }; grant: MemberGrant }>;
  refresh(grant: MemberGrant): Promise<MemberGrant>;
}

export interface ConnectorDriver {
  readonly key: string;
  /** Present where members sign in through the platform's OAuth2 (Discord). */
  readonly signIn?: PlatformSignIn;
  /**
   * Connectors installed through OAuth (Discord): the consent screen that adds this deployment's
   * application to a creator's account, without redirect_uri and state (the caller adds its own);
   * null when the deployment has no application there.
   */
  installAuthorizeUrl?(): string | null;
  /** Checks the credentials with the platform; throws PlatformError when it refuses them or cannot be reached. */
  verify(input: InstallInput): Promise<VerifiedAccount>;
  /** The session of an installation, from its unsealed install fields and its platform account. */
  session(installation: { fields: Readonly<Record<string, string | boolean>>; accountId: string | null }): PlatformSession;
}

export type PlatformErrorKind =
  /** The platform asks the caller to slow down (HTTP 429) for retryAfterMs: the call may be made again then. */
  | "rate_limited"
  /** The platform refused the credentials (a revoked bot token, an OAuth code already used). */
  | "unauthorized"
  /** The platform answered but refused the call (no such chat, missing permission). */
  | "refused"
  /** No answer in time, or no connection. */
  | "unreachable"
  /** The platform has no such operation (roles on Telegram). */
  | "unsupported"
  /** This deployment has no credentials for the platform (the shared Discord application). */
  | "not_configured";

export class PlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    /** The install input the refusal is about (`fields.bot_token`, `oauth.code`), when it is one. */
    readonly field: string | null = null,
    /** The platform's own words for a refusal (Telegram's description, e.g. "Bad Request: CHARGE_ALREADY_REFUNDED"). */
    readonly description: string | null = null,
    /** A rate limit's wait (HTTP 429: Telegram's parameters.retry_after, Discord's retry_after), in milliseconds. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "PlatformError";
  }
}

/** One HTTP call to a platform with a time-out: the status, the parsed JSON body (null when none) and the headers (Discord's rate limits). */
export async function platformCall(
  platform: string,
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<{ status: number; body: any; headers: Headers }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method,
      headers: init.headers ?? {},
      ...(init.body !== undefined ? { body: init.body } : {}),
      signal: AbortSignal.timeout(init.timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    const timedOut = (err as Error).name === "TimeoutError";
    throw new PlatformError("unreachable", `${platform} ${timedOut ? "did not answer in time" : "could not be reached"}.`);
  }
  const text = await res.text().catch(() => "");
  let body: any = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      if (res.status >= 500) throw new PlatformError("unreachable", `${platform} answered ${res.status}.`);
      throw new PlatformError("refused", `${platform} answered ${res.status} with a body that is not JSON.`);
    }
  }
  if (res.status >= 500) throw new PlatformError("unreachable", `${platform} answered ${res.status}.`);
  return { status: res.status, body, headers: res.headers };
}
