// Members: the server pages and filters the list; a member's page shows their subscriptions, access
// and timeline, with the actions the API offers.
import { useState } from "react";
import { Link, useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, ConfirmButton, ErrorNote, Field, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatDate } from "../format";
import { ExportCsv } from "../ui/export";

const STATUSES = [
  { value: "", label: "Any status" },
  { value: "customer", label: "Customer" },
  { value: "trialing", label: "Trialing" },
  { value: "lead", label: "Lead" },
  { value: "churned", label: "Churned" },
  { value: "banned", label: "Banned" },
];

export function MembersPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb } = useDashboard();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState("");
  const [q, setQ] = useState("");
  const [search, setSearch] = useState("");
  const [plan, setPlan] = useState("");
  const [platform, setPlatform] = useState("");
  const [access, setAccess] = useState("");
  const query = {
    page,
    per_page: 25,
    ...(status ? { status: status as "customer" } : {}),
    ...(search ? { q: search } : {}),
    ...(plan ? { plan_id: plan } : {}),
    ...(platform ? { platform } : {}),
    ...(access ? { access: access as "granted" } : {}),
  };
  const members = useQuery({ queryKey: ["members", project, query], queryFn: () => sb.members.list(project, query) });
  const plans = useQuery({ queryKey: ["plans", project], queryFn: () => sb.plans.list(project, { per_page: 100 }) });
  const filter = (set: (v: string) => void) => (v: string) => {
    setPage(1);
    set(v);
  };
  return (
    <>
      <h1>Members</h1>
      <form
        className="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setSearch(q.trim());
        }}
      >
        <Field label="Search" name="q" type="search" value={q} onChange={setQ} description="Name, username or platform id" />
        <SelectField
          label="Status"
          name="status"
          value={status}
          onChange={(v) => {
            setPage(1);
            setStatus(v);
          }}
          options={STATUSES}
        />
        <SelectField
          label="Plan"
          name="plan_id"
          value={plan}
          onChange={filter(setPlan)}
          options={[{ value: "", label: "Any plan" }, ...(plans.data?.data ?? []).map((p) => ({ value: p.id, label: p.name }))]}
        />
        <SelectField
          label="Platform"
          name="platform"
          value={platform}
          onChange={filter(setPlatform)}
          options={[
            { value: "", label: "Any platform" },
            { value: "telegram", label: "Telegram" },
            { value: "discord", label: "Discord" },
          ]}
        />
        <SelectField
          label="Access"
          name="access"
          value={access}
          onChange={filter(setAccess)}
          options={[
            { value: "", label: "Any access" },
            { value: "granted", label: "Granted" },
            { value: "pending", label: "Pending" },
            { value: "failed", label: "Failed" },
            { value: "none", label: "None" },
          ]}
        />
        <Button type="submit" variant="secondary">
          Search
        </Button>
      </form>
      <ErrorNote error={members.error} />
      <DataTable
        caption="Members"
        rows={members.data?.data}
        meta={members.data?.meta}
        onPage={setPage}
        rowKey={(m) => m.id}
        empty="No member matches."
        columns={[
          {
            header: "Member",
            cell: (m) => (
              <Link to="/projects/$project/members/$member" params={{ project, member: m.id }}>
                {m.display_name ?? m.external_user_id ?? m.id}
              </Link>
            ),
          },
          { header: "Status", cell: (m) => m.status },
          { header: "Platform", cell: (m) => m.connector_key ?? "—" },
          { header: "Plans", cell: (m) => m.plans.map((p) => p.name).join(", ") || "—" },
          { header: "Access", cell: (m) => m.access_state },
          { header: "Joined", cell: (m) => formatDate(m.joined_at) },
        ]}
      />
      <CopyAsCode op="list_subscribers" path={{ project }} input={query} />
      <ExportCsv what="members" op="export_members" project={project} filters={query} run={(q) => sb.members.export(project, q as never)} />
    </>
  );
}

export function MemberPage() {
  const { project, member } = useParams({ strict: false }) as { project: string; member: string };
  const { sb, config } = useDashboard();
  const client = useQueryClient();
  const memberQ = useQuery({ queryKey: ["member", project, member], queryFn: () => sb.members.retrieve(project, member) });
  const activity = useQuery({
    queryKey: ["activity", "member", member],
    queryFn: () => sb.activity.list({ subject_type: "member", subject_id: member, limit: 50 }),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ["member", project, member] });
  const [reason, setReason] = useState("");
  const [days, setDays] = useState("7");
  const ban = useMutation({
    mutationFn: () => sb.members.ban(project, member, { reason: reason || null }),
    onSuccess: refresh,
  });
  const unban = useMutation({ mutationFn: () => sb.members.unban(project, member), onSuccess: refresh });
  const sync = useMutation({ mutationFn: () => sb.memberAccess.sync(project, member), onSuccess: refresh });
  const extend = useMutation({
    mutationFn: (subscription: string) => sb.subscriptions.extend(subscription, { days: Number(days) }),
    onSuccess: refresh,
  });
  const cancel = useMutation({
    mutationFn: ({ subscription, atPeriodEnd }: { subscription: string; atPeriodEnd: boolean }) =>
      sb.subscriptions.cancel(subscription, { at_period_end: atPeriodEnd }),
    onSuccess: refresh,
  });
  const m = memberQ.data?.data;
  const subscriptions = new Map<string, { plan: string | null; endsAt: string | null }>();
  for (const a of m?.access ?? [])
    if (a.reason.subscription_id && a.state !== "none")
      subscriptions.set(a.reason.subscription_id, { plan: a.reason.plan_name, endsAt: a.reason.ends_at });
  return (
    <>
      <h1>{m ? (m.display_name ?? m.external_user_id ?? "Member") : "Member"}</h1>
      <ErrorNote error={memberQ.error ?? ban.error ?? unban.error ?? sync.error ?? extend.error ?? cancel.error} />
      {m ? (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>{m.status}</dd>
            <dt>Access</dt>
            <dd>{m.access_state}</dd>
            <dt>Plans</dt>
            <dd>{m.plans.map((p) => p.name).join(", ") || "—"}</dd>
            <dt>Platform</dt>
            <dd>
              {m.connector_key ?? "—"} {m.external_user_id ? <code>{m.external_user_id}</code> : null}
            </dd>
            <dt>Email</dt>
            <dd>{m.email ?? "—"}</dd>
            <dt>Joined</dt>
            <dd>{formatDate(m.joined_at)}</dd>
          </dl>
          <h2>Access, place by place</h2>
          <DataTable
            caption="Why this member has, or does not have, access"
            rows={m.access}
            rowKey={(a) => a.resource_id}
            empty="The project has no place yet."
            columns={[
              { header: "Place", cell: (a) => a.resource_title },
              { header: "State", cell: (a) => a.state },
              {
                header: "Why",
                cell: (a) => (
                  <>
                    {a.reason.message}
                    {a.platform_error ? <span className="hint"> · {a.platform_error}</span> : null}
                  </>
                ),
              },
            ]}
          />
          <div className="actions">
            <Button variant="secondary" onPress={() => sync.mutate()} isDisabled={sync.isPending}>
              Re-sync access
            </Button>
            {m.status === "banned" ? (
              <Button variant="secondary" onPress={() => unban.mutate()}>
                Unban
              </Button>
            ) : (
              <ConfirmButton label="Ban" title="Ban this member?" confirmLabel="Ban member" variant="danger" onConfirm={() => ban.mutateAsync()}>
                <Field label="Reason" name="reason" value={reason} onChange={setReason} />
              </ConfirmButton>
            )}
          </div>
          {sync.data ? <p role="status">Access sync queued.</p> : null}
          {subscriptions.size ? (
            <>
              <h2>Subscriptions</h2>
              <ul className="subscriptions">
                {[...subscriptions].map(([id, s]) => (
                  <li key={id}>
                    <strong>{s.plan ?? "Plan"}</strong>, access until {s.endsAt ? formatDate(s.endsAt) : "forever"}
                    <div className="actions">
                      <ConfirmButton label="Extend" title="Extend this subscription" confirmLabel="Extend" onConfirm={() => extend.mutateAsync(id)}>
                        <Field
                          label="Days"
                          name="days"
                          value={days}
                          onChange={setDays}
                          inputMode="numeric"
                          description="1 to 365; subscriptions billed by Stripe or Stars cannot be moved here."
                        />
                      </ConfirmButton>
                      <ConfirmButton
                        label="Cancel at period end"
                        title="Cancel at the period's end?"
                        confirmLabel="Cancel at period end"
                        onConfirm={() => cancel.mutateAsync({ subscription: id, atPeriodEnd: true })}
                      >
                        The member keeps access until the period ends; nothing more is charged.
                      </ConfirmButton>
                      <ConfirmButton
                        label="Cancel now"
                        title="Cancel now?"
                        confirmLabel="Cancel now"
                        variant="danger"
                        onConfirm={() => cancel.mutateAsync({ subscription: id, atPeriodEnd: false })}
                      >
                        Access ends at once, without a refund (refunds are on the Payments page).
                      </ConfirmButton>
                    </div>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h2>Timeline</h2>
          <ul className="timeline">
            {(activity.data?.data ?? []).map((e) => (
              <li key={e.id}>
                <time dateTime={e.created_at}>{formatDate(e.created_at)}</time> {e.description}
              </li>
            ))}
            {activity.data && activity.data.data.length === 0 ? <li>Nothing recorded yet.</li> : null}
          </ul>
          <CopyAsCode op="get_member" path={{ project, member }} />
        </>
      ) : null}
    </>
  );
}
