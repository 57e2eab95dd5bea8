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

const STATUSES = [
  { value: "", label: "Any status" },
  { value: "active", label: "Active" },
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
  const query: Record<string, unknown> = { page, per_page: 25, ...(status ? { status } : {}), ...(search ? { q: search } : {}) };
  const members = useQuery({ queryKey: ["members", project, query], queryFn: () => sb.members.list(project, query as never) });
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
          { header: "Access", cell: (m) => String((m as { access?: string }).access ?? "—") },
          { header: "Joined", cell: (m) => formatDate(m.joined_at) },
        ]}
      />
      <CopyAsCode op="list_subscribers" path={{ project }} input={query} />
    </>
  );
}

export function MemberPage() {
  const { project, member } = useParams({ strict: false }) as { project: string; member: string };
  const { sb } = useDashboard();
  const client = useQueryClient();
  const memberQ = useQuery({ queryKey: ["member", project, member], queryFn: () => sb.members.retrieve(project, member) });
  const activity = useQuery({
    queryKey: ["activity", "member", member],
    queryFn: () => sb.activity.list({ subject_type: "member", subject_id: member, limit: 50 } as never),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ["member", project, member] });
  const [reason, setReason] = useState("");
  const ban = useMutation({
    mutationFn: () => sb.members.ban(project, member, { reason: reason || "Banned from the dashboard" } as never),
    onSuccess: refresh,
  });
  const unban = useMutation({ mutationFn: () => sb.members.unban(project, member), onSuccess: refresh });
  const m = memberQ.data?.data as
    | (Record<string, unknown> & {
        display_name: string | null;
        status: string;
        email: string | null;
        external_user_id: string | null;
        connector_key: string | null;
        joined_at: string | null;
      })
    | undefined;
  const access = (m?.access ?? []) as { resource_id?: string; resource_title?: string; title?: string; state: string; reason?: string }[];
  const subscriptions = (m?.subscriptions ?? []) as { id: string; status: string; plan_id: string; ends_at: string | null }[];
  return (
    <>
      <h1>{m ? (m.display_name ?? m.external_user_id ?? "Member") : "Member"}</h1>
      <ErrorNote error={memberQ.error ?? ban.error ?? unban.error} />
      {m ? (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>{m.status}</dd>
            <dt>Platform</dt>
            <dd>
              {m.connector_key ?? "—"} {m.external_user_id ? <code>{m.external_user_id}</code> : null}
            </dd>
            <dt>Email</dt>
            <dd>{m.email ?? "—"}</dd>
            <dt>Joined</dt>
            <dd>{formatDate(m.joined_at)}</dd>
          </dl>
          {subscriptions.length ? (
            <>
              <h2>Subscriptions</h2>
              <ul>
                {subscriptions.map((s) => (
                  <li key={s.id}>
                    {s.status}, until {formatDate(s.ends_at)}{" "}
                    <ConfirmButton
                      label="Cancel"
                      title="Cancel this subscription?"
                      confirmLabel="Cancel subscription"
                      variant="danger"
                      onConfirm={async () => {
                        await sb.subscriptions.cancel(s.id);
                        await refresh();
                      }}
                    >
                      The member keeps access until the period ends.
                    </ConfirmButton>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {access.length ? (
            <>
              <h2>Access</h2>
              <ul>
                {access.map((a, i) => (
                  <li key={a.resource_id ?? i}>
                    <strong>{a.resource_title ?? a.title ?? a.resource_id}</strong>: {a.state}
                    {a.reason ? <span className="hint"> · {a.reason}</span> : null}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h2>Actions</h2>
          {m.status === "banned" ? (
            <Button variant="secondary" onPress={() => unban.mutate()}>
              Unban
            </Button>
          ) : (
            <ConfirmButton label="Ban" title="Ban this member?" confirmLabel="Ban member" variant="danger" onConfirm={() => ban.mutateAsync()}>
              <Field label="Reason" name="reason" value={reason} onChange={setReason} />
            </ConfirmButton>
          )}
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
