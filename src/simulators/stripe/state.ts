// The twin's objects and clock. Every object belongs to the platform (account null) or to one
// connected account (the Stripe-Account header); a request sees only its own account's objects, as
// on Stripe. Time is the wall clock plus the twin's offset, or a test clock's frozen time for the
// objects of customers created on it. Events are recorded and handed to the webhook sender.
// `snapshot()` and `TwinState.restore()` carry all of it but the records of calls and deliveries
// as plain JSON (an embedded start keeps it under DATA_DIR, see ../../simulation/state-file.ts).
import { randomBytes } from "node:crypto";
import { noSuch } from "./errors.ts";
import { WebhookSender } from "./webhooks.ts";

export type StripeObject = { id: string; object: string; [key: string]: unknown };
export type Account = string | null;

export const API_VERSION = "2026-10-28.endive";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** An id with Stripe's prefix and random letters and digits (`cus_` + 14, most others + 24). */
export function newId(prefix: string, length = 24): string {
  let out = "";
  for (const byte of randomBytes(length)) out += ALPHABET[byte % ALPHABET.length];
  return `${prefix}${out}`;
}

export const clone = <T>(value: T): T => structuredClone(value);

interface Entry {
  account: Account;
  object: StripeObject;
  seq: number;
}

/** A checkout session's line: what it sells (Stripe returns these only through its line_items list). */
export interface SessionLine {
  price: StripeObject;
  quantity: number;
}

/** A subscription's renewal attempts: failures so far, the next retry, and a test's "the next payment fails". */
export interface SubscriptionBook {
  failures: number;
  nextAttempt: number | null;
  failNext: boolean;
}

/** An Idempotency-Key's saved answer, by `<account>|<key>`. */
export interface Replay {
  fingerprint: string;
  status: number;
  body: unknown;
}

type AccountLink = { account: string; returnUrl: string; refreshUrl: string; expiresAt: number; used: boolean };

/** The twin's state as plain JSON. */
export interface TwinSnapshot {
  seq: number;
  offset: number;
  platform: StripeObject;
  entries: Entry[];
  endpoints: WebhookEndpoint[];
  cardNumbers: [string, string][];
  accountLinks: [string, AccountLink][];
  sessionLines: [string, SessionLine[]][];
  books: [string, SubscriptionBook][];
  replays: [string, Replay][];
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  secret: string;
  connect: boolean;
  enabledEvents: string[];
  status: "enabled" | "disabled";
}

export class TwinState {
  private readonly entries = new Map<string, Entry>();
  private seq = 0;
  private offset = 0;
  readonly events: StripeObject[] = [];
  readonly endpoints = new Map<string, WebhookEndpoint>();
  readonly webhooks = new WebhookSender();
  /** Card numbers of the payment methods, which Stripe never shows again after entry. */
  readonly cardNumbers = new Map<string, string>();
  /** Account links by their token: single use, until expires_at. */
  readonly accountLinks = new Map<string, AccountLink>();
  /** The line items of each checkout session, by its id. */
  readonly sessionLines = new Map<string, SessionLine[]>();
  /** Each subscription's renewal attempts, by its id. */
  readonly books = new Map<string, SubscriptionBook>();
  /** Idempotency-Key answers (Stripe keeps them 24 hours; the twin for its lifetime). */
  readonly replays = new Map<string, Replay>();
  /** The platform's own account, which GET /v1/account returns without Stripe-Account. */
  readonly platform: StripeObject = { id: newId("acct_", 16), object: "account" };

  snapshot(): TwinSnapshot {
    return {
      seq: this.seq,
      offset: this.offset,
      platform: this.platform,
      entries: [...this.entries.values()],
      endpoints: [...this.endpoints.values()],
      cardNumbers: [...this.cardNumbers],
      accountLinks: [...this.accountLinks],
      sessionLines: [...this.sessionLines],
      books: [...this.books],
      replays: [...this.replays],
    };
  }

  /** A twin's state as a snapshot left it (its events in the order they were sent). */
  static restore(snapshot: TwinSnapshot): TwinState {
    const state = new TwinState();
    state.seq = snapshot.seq;
    state.offset = snapshot.offset;
    Object.assign(state.platform, snapshot.platform);
    for (const entry of snapshot.entries) state.entries.set(entry.object.id, entry);
    state.events.push(...snapshot.entries.filter((e) => e.object.object === "event").map((e) => e.object));
    for (const endpoint of snapshot.endpoints) state.endpoints.set(endpoint.id, endpoint);
    const fill = <V>(map: Map<string, V>, pairs: [string, V][]) => pairs.forEach(([key, value]) => map.set(key, value));
    fill(state.cardNumbers, snapshot.cardNumbers);
    fill(state.accountLinks, snapshot.accountLinks);
    fill(state.sessionLines, snapshot.sessionLines);
    fill(state.books, snapshot.books);
    fill(state.replays, snapshot.replays);
    return state;
  }

  /** The twin's own clock (Unix seconds): the wall clock moved on by every advanceClock. */
  wallNow(): number {
    return Math.floor(Date.now() / 1000) + this.offset;
  }

  advance(seconds: number) {
    this.offset += seconds;
  }

  /** The time an object lives in: its test clock's frozen time, or the twin's clock. */
  now(clock: string | null | undefined): number {
    if (!clock) return this.wallNow();
    return this.entries.get(clock)?.object.frozen_time as number;
  }

  put<T extends StripeObject>(account: Account, object: T): T {
    const existing = this.entries.get(object.id);
    this.entries.set(object.id, { account, object, seq: existing?.seq ?? ++this.seq });
    return object;
  }

  exists(id: string) {
    return this.entries.has(id);
  }

  /** The object `id` of this account and kind, or undefined. */
  find(account: Account, id: string, kind?: string): StripeObject | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.account !== account || (kind && entry.object.object !== kind)) return undefined;
    return entry.object;
  }

  /** The object or Stripe's 404 naming it (`No such price: 'price_…'`). */
  get(account: Account, id: string, kind: string, param?: string): StripeObject {
    const found = this.find(account, id, kind);
    if (!found) throw noSuch(kind.replace(/^test_helpers\.test_clock$/, "test clock"), id, param);
    return found;
  }

  /** An object by id whatever its account (the twin's controls), with its account. */
  locate(id: string): { account: Account; object: StripeObject } | undefined {
    const entry = this.entries.get(id);
    return entry && { account: entry.account, object: entry.object };
  }

  /** This account's objects of a kind, newest first. */
  all(account: Account, kind: string): StripeObject[] {
    return [...this.entries.values()]
      .filter((e) => e.account === account && e.object.object === kind)
      .sort((a, b) => b.seq - a.seq)
      .map((e) => e.object);
  }

  /** Every object of a kind across accounts (renewals run for all of them). */
  everywhere(kind: string): { account: Account; object: StripeObject }[] {
    return [...this.entries.values()].filter((e) => e.object.object === kind).map((e) => ({ account: e.account, object: e.object }));
  }

  /** Records an event (a snapshot of the object) and sends it to the endpoints that want it. */
  emit(account: Account, type: string, object: StripeObject, options: { at?: number; previous?: Record<string, unknown> } = {}): StripeObject {
    const event: StripeObject = {
      id: newId("evt_"),
      object: "event",
      ...(account ? { account } : {}),
      api_version: API_VERSION,
      created: options.at ?? this.wallNow(),
      data: { object: clone(object), ...(options.previous ? { previous_attributes: options.previous } : {}) },
      livemode: false,
      pending_webhooks: 0,
      request: { id: null, idempotency_key: null },
      type,
    };
    const targets = [...this.endpoints.values()].filter(
      (e) => e.status === "enabled" && e.connect === (account !== null) && (e.enabledEvents.includes("*") || e.enabledEvents.includes(type)),
    );
    event.pending_webhooks = targets.length;
    this.put(account, event);
    this.events.push(event);
    for (const endpoint of targets) this.webhooks.send(endpoint, event);
    return event;
  }

  /** The object is gone (a connected account the platform was disconnected from): every call naming it is refused. */
  forget(id: string) {
    this.entries.delete(id);
  }

  /** Emits `<kind>.updated` with previous_attributes: the top-level fields that changed since `before`. */
  emitUpdated(account: Account, type: string, before: StripeObject, after: StripeObject, at?: number) {
    const previous = Object.fromEntries(
      Object.keys(after)
        .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
        .map((k) => [k, before[k] ?? null]),
    );
    return this.emit(account, type, after, { at, previous });
  }
}
