// Messages to people (an invitation now; alerts and sign-in mail later), queued in the transaction
// that decides to send them, so a message exists if and only if its cause committed. The mail
// worker (src/workers/mail) sends them over SMTP; the operator CLI lists those not yet sent.
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { oneLine } from "../../one-line.ts";

export interface Mail {
  to: string;
  /** One line (a line break in it becomes a space). */
  subject: string;
  /** Plain text: the text part verbatim; the HTML part escaped, with only `links` as links (render.ts). */
  body: string;
  /** The message's own links (our pages, each as it appears in `body`): nothing else in it is ever a link. */
  links?: readonly string[];
}

const outbox = (from: DomainContext | Db) => unscoped(from, "mail is addressed to people, not owned by a team")("mail_outbox");

/** The row a message is queued as. */
function outboxRow(mail: Mail, now: Date) {
  return {
    id: randomUUID(),
    to_address: mail.to,
    subject: oneLine(mail.subject),
    body: mail.body,
    links: mail.links ?? [],
    created_at: now,
    sent_at: null,
    status: "queued",
    next_attempt_at: now,
  };
}

export async function queueMail(ctx: DomainContext, mail: Mail): Promise<void> {
  await queueMailAt(ctx, mail, ctx.now);
}

/** Queues a message outside any team's context (account mail: sign-up links). */
export async function queueMailAt(from: DomainContext | Db, mail: Mail, now: Date): Promise<void> {
  const row = outboxRow(mail, now);
  // As JSON text: knex would bind an array as a PostgreSQL array, not as jsonb.
  await outbox(from).insert({ ...row, links: JSON.stringify(row.links) });
}

/**
 * Runs `cause`, an insert returning the `id` of the row it wrote (none when it wrote nothing), and
 * queues `mail` only if it wrote one, in a single statement: a change and the message it sends
 * cost one round trip inside their transaction. Answers the ids `cause` returned. The message
 * travels as one JSON value read as a mail_outbox row, so each field takes its column's type.
 */
export async function queueMailWith(from: DomainContext | Db, cause: Knex.QueryBuilder, mail: Mail, now: Date): Promise<{ id: string }[]> {
  const row = outboxRow(mail, now);
  const columns = Object.keys(row);
  const names = columns.map(() => "??").join(", ");
  const fields = columns.map(() => "m.??").join(", ");
  const { rows } = (await unscoped(from, "the outbox row belongs to the person mailed, as queueMailAt's").raw(
    `with cause as (?) insert into mail_outbox (${names}) select ${fields} from cause, jsonb_populate_record(null::mail_outbox, ?::jsonb) as m returning (select id from cause) as id`,
    [cause, ...columns, ...columns, JSON.stringify(row)],
  )) as { rows: { id: string }[] };
  return rows;
}

/** An outbox row's message as it was queued (a row from before links were kept has none). */
export interface OutboxRow {
  id: string;
  to_address: string;
  subject: string;
  body: string;
  links: string[] | null;
}

export const mailOfRow = (r: OutboxRow) => ({ id: r.id, to: r.to_address, subject: r.subject, body: r.body, links: r.links ?? [] });

/** Messages not yet sent, oldest first (optionally to one address). */
export async function pendingMail(db: Db, to?: string): Promise<(Mail & { id: string; links: readonly string[]; created_at: string })[]> {
  const query = outbox(db).whereNull("sent_at").orderBy("created_at", "asc");
  if (to) query.whereRaw("lower(to_address) = lower(?)", [to]);
  const rows = (await query.select("*")) as (OutboxRow & { created_at: Date })[];
  return rows.map((r) => ({ ...mailOfRow(r), created_at: new Date(r.created_at).toISOString() }));
}
