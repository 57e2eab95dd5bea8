// Group commit for activity entries that join no transaction of their own (an MCP read's
// invocation entry, a refused call's): entries arriving while a batch is in flight share the next
// one, written by one statement (a single JSON value, activityInsert), and each caller's promise
// resolves once its own row is committed, so no answer is sent before its entry is durable. Under
// light load every entry is written at once; under heavy load one statement carries many. A batch
// is a transaction sent whole (runTransaction of one deferred statement): where the database
// multiplexes it goes on a transaction lane, so no read waits behind its COMMIT. Entries of a
// write still commit inside the write's transaction.
import { unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { deferStatement, runTransaction } from "../../db/transaction.ts";
import { activityInsert, activityLog, activityRow, type ActivityInput } from "./activity-log.ts";

interface Pending {
  row: Record<string, unknown>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupedActivityWriter {
  private readonly queue: Pending[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly maxRows = 500,
  ) {}

  /** Resolves once the entry is committed; rejects when its batch could not be. */
  write(ctx: DomainContext, entry: ActivityInput): Promise<void> {
    const row = activityLog.own(ctx, activityRow(ctx, entry));
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const table = unscoped(this.db, "group commit: each row was made owned by its actor's team (activityLog.own) when queued");
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxRows);
      try {
        const { sql, bindings } = activityInsert(batch.map((p) => p.row));
        await runTransaction(table, async (trx) => {
          if (!deferStatement(trx, sql, bindings)) await trx.raw(sql, bindings);
        });
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    this.flushing = false;
  }
}
