// Overview: the project's numbers over a period, per currency (Telegram Stars apart), from the
// analytics operation.
import { useState } from "react";
import { Link, useParams } from "@tanstack/react-router";
import { useQuery } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { ErrorNote, SelectField } from "../ui/kit";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatMoney } from "../format";
import { OpenHoldsNotice } from "./removal-holds";

const PERIODS = ["7d", "14d", "30d", "60d", "90d"].map((p) => ({ value: p, label: `Last ${p.replace("d", " days")}` }));

type Revenue = { currency: string; gross: number; refunded: number; net: number; transactions: number };
type Amount = { currency: string; amount: number };
/** The analytics answer, with the overview's additions where the server has them. */
interface Numbers {
  members: { active: number; new?: number; churned?: number };
  subscriptions: { active: number; new: number; canceled: number; expired: number };
  revenue: Revenue[];
  mrr?: Amount[];
  failed_payments?: (Amount & { count: number })[];
  at_risk?: Amount[];
}

export function OverviewPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb } = useDashboard();
  const [period, setPeriod] = useState("30d");
  const projectQ = useQuery({ queryKey: ["project", project], queryFn: () => sb.projects.retrieve(project) });
  const stats = useQuery({ queryKey: ["analytics", project, period], queryFn: () => sb.analytics.project(project, { period: period as "30d" }) });
  const plans = useQuery({ queryKey: ["plans", project], queryFn: () => sb.plans.list(project, { per_page: 100 }) });
  const data = stats.data?.data as Numbers | undefined;
  const revenue = data?.revenue ?? [];
  const needsSetup = plans.data && !plans.data.data.some((p) => p.status === "published");
  return (
    <>
      <h1>{projectQ.data?.data.name ?? "Overview"}</h1>
      {needsSetup ? (
        <p className="notice info">
          This project sells nothing yet.{" "}
          <Link to="/projects/$project/setup" params={{ project }}>
            Continue the setup
          </Link>
          .
        </p>
      ) : null}
      <OpenHoldsNotice project={project} />
      <SelectField label="Period" name="period" value={period} onChange={setPeriod} options={PERIODS} />
      <ErrorNote error={stats.error} />
      {data ? (
        <>
          <div className="cards">
            <div className="card">
              <span className="label">Active members</span>
              <span className="value">{data.members.active}</span>
            </div>
            <div className="card">
              <span className="label">New subscriptions</span>
              <span className="value">{data.subscriptions.new}</span>
            </div>
            <div className="card">
              <span className="label">Churned</span>
              <span className="value">{data.members.churned ?? data.subscriptions.expired + data.subscriptions.canceled}</span>
            </div>
            {(data.mrr ?? []).map((m) => (
              <div className="card" key={`mrr-${m.currency}`}>
                <span className="label">MRR ({m.currency === "XTR" ? "Stars" : m.currency})</span>
                <span className="value">{formatMoney(m)}</span>
              </div>
            ))}
          </div>
          <h2>Revenue</h2>
          {revenue.length ? (
            <div className="table-wrap">
              <table>
                <caption>Revenue in the period, per currency</caption>
                <thead>
                  <tr>
                    <th scope="col">Currency</th>
                    <th scope="col">Gross</th>
                    <th scope="col">Refunded</th>
                    <th scope="col">Net</th>
                    <th scope="col">Payments</th>
                  </tr>
                </thead>
                <tbody>
                  {revenue.map((r) => (
                    <tr key={r.currency}>
                      <td data-label="Currency">{r.currency === "XTR" ? "Telegram Stars" : r.currency}</td>
                      <td data-label="Gross">{formatMoney({ amount: r.gross, currency: r.currency })}</td>
                      <td data-label="Refunded">{formatMoney({ amount: r.refunded, currency: r.currency })}</td>
                      <td data-label="Net">{formatMoney({ amount: r.net, currency: r.currency })}</td>
                      <td data-label="Payments">{r.transactions}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p>No payments in this period yet.</p>
          )}
          {data.failed_payments?.length || data.at_risk?.length ? (
            <>
              <h2>Needs attention</h2>
              <ul>
                {(data.failed_payments ?? []).map((f) => (
                  <li key={`f-${f.currency}`}>
                    {f.count} failed payment{f.count === 1 ? "" : "s"} ({formatMoney({ amount: f.amount, currency: f.currency })})
                  </li>
                ))}
                {(data.at_risk ?? []).map((r) => (
                  <li key={`r-${r.currency}`}>Revenue at risk: {formatMoney({ amount: r.amount, currency: r.currency })}</li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      ) : stats.isLoading ? (
        <p>Loading…</p>
      ) : null}
      <CopyAsCode op="get_project_analytics" path={{ project }} input={{ period }} />
    </>
  );
}
