// A file of rows as CSV (RFC 4180, by csv-stringify), written chunk by chunk as the rows are read,
// for the operations whose success body is text/csv (the handler answers a FileBody).
import { stringify } from "csv-stringify/sync";
import type { FileBody } from "../../../generated/operations.ts";

/** One column: its header and how a row gives its cell (null: empty). */
export interface CsvColumn<Row> {
  header: string;
  cell: (row: Row) => string | number | null;
}

/**
 * OWASP's CSV injection advice: a cell a spreadsheet would run as a formula gets a leading single
 * quote. A plain negative number ("-12.50") is data, not a formula, and stays as it is.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-\d+(\.\d+)?$/;

export function defuseFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

const OPTIONS = { cast: { string: defuseFormula }, eof: true, record_delimiter: "windows" } as const;

/** The header row, then each chunk of rows as one piece of text: what a FileBody streams. */
export async function* csvChunks<Row>(columns: readonly CsvColumn<Row>[], chunks: AsyncIterable<readonly Row[]>): AsyncGenerator<string> {
  yield stringify([columns.map((c) => c.header)], OPTIONS);
  for await (const rows of chunks)
    yield stringify(
      rows.map((row) => columns.map((c) => c.cell(row) ?? "")),
      OPTIONS,
    );
}

/** `<handle>-<what>-<YYYY-MM-DD>.csv`, the date of `now` in UTC. */
export function csvFilename(handle: string, what: string, now: Date): string {
  return `${handle}-${what}-${now.toISOString().slice(0, 10)}.csv`;
}

/** A CSV download: its name and its chunks, read as the client takes them. */
export function csvFile<Row>(filename: string, columns: readonly CsvColumn<Row>[], chunks: AsyncIterable<readonly Row[]>): FileBody {
  return { filename, chunks: csvChunks(columns, chunks) };
}
