// A list the server pages: a table with a caption, and the page links the API's meta allows.
import type { ReactNode } from "react";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
}

export interface PageMeta {
  current_page: number;
  last_page: number;
  total: number;
  from: number | null;
  to: number | null;
}

export function DataTable<Row>(props: {
  caption: string;
  columns: Column<Row>[];
  rows: Row[] | undefined;
  rowKey: (row: Row) => string;
  meta?: PageMeta | undefined;
  onPage?: (page: number) => void;
  empty?: ReactNode;
  loading?: boolean;
}) {
  const { rows, meta } = props;
  return (
    <div className="table-wrap">
      <table>
        <caption>
          {props.caption}
          {meta ? <span className="hint"> · {meta.total} in all</span> : null}
        </caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.header} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows?.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((c) => (
                <td key={c.header} data-label={c.header}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
          {rows && rows.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length}>{props.empty ?? "Nothing here yet."}</td>
            </tr>
          ) : null}
          {!rows ? (
            <tr>
              <td colSpan={props.columns.length}>{props.loading === false ? "—" : "Loading…"}</td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {meta && props.onPage && meta.last_page > 1 ? (
        <nav className="pager" aria-label={`${props.caption} pages`}>
          <button type="button" disabled={meta.current_page <= 1} onClick={() => props.onPage!(meta.current_page - 1)}>
            Previous
          </button>
          <span>
            Page {meta.current_page} of {meta.last_page}
          </span>
          <button type="button" disabled={meta.current_page >= meta.last_page} onClick={() => props.onPage!(meta.current_page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </div>
  );
}
