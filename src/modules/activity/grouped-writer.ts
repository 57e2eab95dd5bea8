// Group commit for activity entries that join no transaction of their own: an MCP read's invocation
// entry, a refused call's. Entries of a write commit inside the write's transaction instead.
//
// Entries are written many to a statement (a single JSON value, activityInsert), which commits by
// itself; a few batches may be on their way at once.
//
// `record` queues an entry and returns without waiting for it: the caller answers its client
// meanwhile, and the entry is written with the others recorded in the next flushDelayMs (50 ms), so
// under load one statement carries hundreds of entries rather than a few (a shorter delay costs
// more CPU per call: docs/performance.md). `write` resolves only once its entry is committed, and its batch leaves at the end of the current turn of the event
// loop. A batch that fails (a connection lost, a failover) is retried; entries that still cannot
// be written are logged in full, at error level. `drain` writes everything queued at once and
// waits for it: the server drains before it closes the database on shutdown, so only a process
// killed outright loses what it recorded in its last moments. Memory is bounded: past `maxQueued`
// waiting entries, `record` waits for its entry as `write` does, so a database that cannot keep up
// slows its callers down rather than letting the queue grow.
import type { Logger } from "pino";
import { unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { activityInsert, activityLog, activityRow, type ActivityInput } from "./activity-log.ts";

interface Pending {
  row: Record<string, unknown>;
  /** Absent for a recorded entry nobody waits for. */
  resolve?: () => void;
  reject?: (err: unknown) => void;
}

export interface GroupedWriterOptions {
  /** Rows per statement. */
  maxRows?: number;
  /** Batches on their way at once. */
  maxBatchesInFlight?: number;
  /** Entries waiting to be written past which `record` waits for its own. */
  maxQueued?: number;
  /** How long recorded entries (nobody waits for them) gather before they are written. */
  flushDelayMs?: number;
  /** Pauses before each retry of a failed batch; its entries are given up after the last. */
  retryDelaysMs?: readonly number[];
}

export class GroupedActivityWriter {
  private readonly queue: Pending[] = [];
  /** A flush at the end of this turn of the event loop, or one after flushDelayMs. */
  private immediate = false;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = 0;
  /** Queued entries someone waits for (write). */
  private waiting = 0;
  /** The flush delay has passed for entries still queued. */
  private overdue = false;
  /** Recorded entries still being made (record with a promise). */
  private making = 0;
  private drained: (() => void)[] = [];
  private readonly maxRows: number;
  private readonly maxBatchesInFlight: number;
  private readonly maxQueued: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly flushDelayMs: number;

  constructor(
    private readonly db: Db,
    private readonly logger: Pick<Logger, "error">,
    options: GroupedWriterOptions = {},
  ) {
    this.maxRows = options.maxRows ?? 500;
    this.maxBatchesInFlight = options.maxBatchesInFlight ?? 4;
    this.maxQueued = options.maxQueued ?? 10_000;
    this.retryDelaysMs = options.retryDelaysMs ?? [50, 250, 1000];
    this.flushDelayMs = options.flushDelayMs ?? 50;
  }

  /** Resolves once the entry is committed; rejects when its batch could not be. */
  write(ctx: DomainContext, entry: ActivityInput): Promise<void> {
    const row = activityLog.own(ctx, activityRow(ctx, entry));
    return new Promise((resolve, reject) => this.enqueue({ row, resolve, reject }));
  }

  /**
   * Queues the entry without waiting for it, unless maxQueued entries are already waiting (then
   * the returned promise settles as `write`'s does). The entry may still be in the making (a lookup
   * decides its subject): it is queued once made, and `drain` waits for it meanwhile.
   */
  record(ctx: DomainContext, entry: ActivityInput | Promise<ActivityInput>): Promise<void> | undefined {
    if (this.queue.length >= this.maxQueued) return Promise.resolve(entry).then((made) => this.write(ctx, made));
    if (!(entry instanceof Promise)) {
      this.enqueue({ row: activityLog.own(ctx, activityRow(ctx, entry)) });
      return undefined;
    }
    this.making++;
    entry
      .then(
        (made) => this.enqueue({ row: activityLog.own(ctx, activityRow(ctx, made)) }),
        (err: unknown) => this.logger.error({ err }, "an activity entry could not be made"),
      )
      .finally(() => {
        this.making--;
        this.settle();
      });
    return undefined;
  }

  /** Resolves once every entry queued so far has been written (or given up). */
  drain(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    if (this.queue.length) this.schedule(true);
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private idle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0 && this.making === 0 && !this.immediate && this.timer === null;
  }

  private settle(): void {
    if (this.idle()) for (const resolve of this.drained.splice(0)) resolve();
  }

  private enqueue(pending: Pending): void {
    this.queue.push(pending);
    if (pending.resolve) this.waiting++;
    this.schedule(this.due());
  }

  /**
   * Whether what is queued should leave as soon as a batch can: someone waits for it, a statement's
   * worth is there, a drain was asked for, or the flush delay has passed (left over because
   * maxBatchesInFlight were on their way). Otherwise recorded entries gather until the timer.
   */
  private due(): boolean {
    return this.waiting > 0 || this.overdue || this.queue.length >= this.maxRows || this.drained.length > 0;
  }

  private schedule(urgent: boolean): void {
    if (this.immediate) return;
    if (urgent || this.flushDelayMs === 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.immediate = true;
      setImmediate(() => {
        this.immediate = false;
        this.pump();
      });
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.overdue = true;
        this.pump();
      }, this.flushDelayMs).unref();
    }
  }

  private pump(): void {
    while (this.queue.length && this.inFlight < this.maxBatchesInFlight) {
      const batch = this.queue.splice(0, this.maxRows);
      for (const p of batch) if (p.resolve) this.waiting--;
      this.inFlight++;
      void this.send(batch).then(() => {
        this.inFlight--;
        if (this.due()) this.pump();
        else if (this.queue.length) this.schedule(false);
        this.settle();
      });
    }
    if (!this.queue.length) this.overdue = false;
  }

  /** Writes the batch, retrying as configured; never rejects (the batch's callers learn the outcome). */
  private async send(batch: Pending[]): Promise<void> {
    const table = unscoped(this.db, "group commit: each row was made owned by its actor's team (activityLog.own) when queued");
    let failure: unknown;
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, this.retryDelaysMs[attempt - 1]));
      try {
        const { sql, bindings } = activityInsert(batch.map((p) => p.row));
        await table.raw(sql, bindings);
        for (const p of batch) p.resolve?.();
        return;
      } catch (err) {
        failure = err;
      }
    }
    const unattended = batch.filter((p) => !p.reject).map((p) => p.row);
    if (unattended.length) this.logger.error({ err: failure, entries: unattended }, "activity entries could not be written");
    for (const p of batch) p.reject?.(failure);
  }
}
