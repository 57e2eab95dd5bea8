// Exports: the API streams the CSV (export_members, export_transactions); the browser saves it as a
// file named by the day. Dated by an optional window, filtered as the list on the page is.
import { useId, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Button, ErrorNote } from "./kit";
import { CopyAsCode, type OperationId } from "./copy-as-code";

function save(csv: string, name: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ExportCsv(props: {
  what: string;
  op: OperationId;
  project: string;
  filters: Record<string, unknown>;
  run: (query: Record<string, unknown>) => Promise<string>;
}) {
  const id = useId();
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const query = {
    ...props.filters,
    ...(from ? { from: new Date(`${from}T00:00:00Z`).toISOString() } : {}),
    ...(to ? { to: new Date(`${to}T23:59:59.999Z`).toISOString() } : {}),
  };
  delete (query as { page?: unknown }).page;
  delete (query as { per_page?: unknown }).per_page;
  const run = useMutation({
    mutationFn: () => props.run(query),
    onSuccess: (csv) => save(csv, `${props.what}-${new Date().toISOString().slice(0, 10)}.csv`),
  });
  return (
    <section className="export" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Export</h2>
      <p className="hint">The {props.what} the filters above select, as a CSV file (amounts in minor units too).</p>
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-from`}>From (UTC)</label>
          <input id={`${id}-from`} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-to`}>To (UTC)</label>
          <input id={`${id}-to`} type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </div>
        <Button variant="secondary" onPress={() => run.mutate()} isDisabled={run.isPending}>
          {run.isPending ? "Exporting…" : `Export ${props.what} as CSV`}
        </Button>
      </div>
      {run.isSuccess ? <p role="status">The file was saved.</p> : null}
      <ErrorNote error={run.error} />
      <CopyAsCode op={props.op} path={{ project: props.project }} input={query} />
    </section>
  );
}
