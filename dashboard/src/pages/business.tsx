// Money and people: payment methods and transactions, the support inbox, the activity log.
import { useState } from "react";
import { useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, ErrorNote, Field, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatDate, formatMoney } from "../format";
import { ExportCsv } from "../ui/export";

export function PaymentsPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb, config } = useDashboard();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const methods = useQuery({ queryKey: ["payment-methods", project], queryFn: () => sb.paymentMethods.list(project, { per_page: 100 }) });
  const transactions = useQuery({ queryKey: ["transactions", project, page], queryFn: () => sb.transactions.list(project, { page, per_page: 25 }) });
  const toggle = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) => sb.paymentMethods.update(project, id, { enabled }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["payment-methods", project] }),
  });
  const onboarding = `${config.authUrl}/payments?project=${encodeURIComponent(project)}#project-${project}`;
  return (
    <>
      <h1>Payments</h1>
      <ErrorNote error={methods.error ?? toggle.error} />
      <DataTable
        caption="Payment methods"
        rows={methods.data?.data}
        rowKey={(m) => m.id}
        empty="No payment method yet."
        columns={[
          { header: "Method", cell: (m) => m.name },
          { header: "Provider", cell: (m) => m.provider },
          { header: "Mode", cell: (m) => m.mode },
          {
            header: "On",
            cell: (m) => (
              <Button
                variant="secondary"
                aria-label={`${m.enabled ? "Turn off" : "Turn on"} ${m.name}`}
                onPress={() => toggle.mutate({ id: m.id, enabled: !m.enabled })}
              >
                {m.enabled ? "Turn off" : "Turn on"}
              </Button>
            ),
          },
        ]}
      />
      <p className="actions">
        <a className="btn primary" href={onboarding}>
          Connect Stripe
        </a>
        <a className="btn secondary" href={onboarding}>
          Telegram Stars and refunds
        </a>
      </p>
      <p className="hint">Connecting a provider and refunding run on your account's payments page (Stripe's onboarding is a browser flow).</p>
      <h2>Transactions</h2>
      <ErrorNote error={transactions.error} />
      <DataTable
        caption="Transactions"
        rows={transactions.data?.data}
        meta={transactions.data?.meta}
        onPage={setPage}
        rowKey={(t) => t.id}
        columns={[
          { header: "When", cell: (t) => formatDate(t.created_at) },
          { header: "Kind", cell: (t) => t.kind },
          { header: "Status", cell: (t) => t.status },
          { header: "Amount", cell: (t) => formatMoney(t.amount) },
          { header: "Provider", cell: (t) => t.provider ?? "—" },
          {
            header: "Refund",
            cell: (t) =>
              t.kind === "payment" && t.status === "succeeded" ? (
                // payment:refund is Coming on the API: refunds are the account's page, a browser flow.
                <a href={`${config.authUrl}/payments/projects/${project}/payments/${t.id}/refund`}>Refund</a>
              ) : (
                "—"
              ),
          },
        ]}
      />
      <CopyAsCode op="list_transactions" path={{ project }} input={{ page, per_page: 25 }} />
      <ExportCsv
        what="transactions"
        op="export_transactions"
        project={project}
        filters={{}}
        run={(q) => sb.transactions.export(project, q as never)}
      />
    </>
  );
}

export function SupportPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [status, setStatus] = useState("open");
  const [open, setOpen] = useState<string | null>(null);
  const conversations = useQuery({
    queryKey: ["support", project, status],
    queryFn: () => sb.supportConversations.list(project, { status, per_page: 50 } as never),
  });
  const messages = useQuery({
    enabled: Boolean(open),
    queryKey: ["support-messages", open],
    queryFn: () => sb.supportConversations.listMessages(project, open!, { per_page: 100 } as never),
  });
  const canned = useQuery({ queryKey: ["canned", project], queryFn: () => sb.cannedReplies.list(project, { per_page: 100 }) });
  const [text, setText] = useState("");
  const reply = useMutation({
    mutationFn: (body: { body: string } | { canned_reply_id: string }) => sb.supportConversations.reply(project, open!, body),
    onSuccess: () => {
      setText("");
      return client.invalidateQueries({ queryKey: ["support-messages", open] });
    },
  });
  return (
    <>
      <h1>Support</h1>
      <SelectField
        label="Show"
        name="status"
        value={status}
        onChange={setStatus}
        options={[
          { value: "open", label: "Open conversations" },
          { value: "closed", label: "Closed conversations" },
        ]}
      />
      <ErrorNote error={conversations.error} />
      <DataTable
        caption="Conversations"
        rows={conversations.data?.data}
        meta={conversations.data?.meta}
        rowKey={(c) => c.id}
        empty="No conversation here."
        columns={[
          { header: "Member", cell: (c) => String((c as { member_id?: string }).member_id ?? "—") },
          { header: "Status", cell: (c) => String((c as { status?: string }).status) },
          { header: "Updated", cell: (c) => formatDate((c as { updated_at?: string }).updated_at) },
          {
            header: "Open",
            cell: (c) => (
              <Button variant="secondary" onPress={() => setOpen(c.id)}>
                Read
              </Button>
            ),
          },
        ]}
      />
      {open ? (
        <section aria-labelledby="thread">
          <h2 id="thread">Conversation</h2>
          <ol className="thread">
            {(messages.data?.data ?? []).map((m) => {
              const msg = m as { id: string; body?: string; direction?: string; created_at?: string };
              return (
                <li key={msg.id} className={msg.direction === "outbound" ? "out" : "in"}>
                  <span className="hint">{formatDate(msg.created_at)}</span> {msg.body}
                </li>
              );
            })}
          </ol>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              reply.mutate({ body: text });
            }}
          >
            <Field label="Reply" name="body" value={text} onChange={setText} multiline />
            <ErrorNote error={reply.error} />
            <div className="actions">
              <Button type="submit">Send reply</Button>
              {(canned.data?.data ?? []).map((c) => (
                <Button key={c.id} variant="secondary" onPress={() => reply.mutate({ canned_reply_id: c.id })}>
                  {`Send “${(c as { title?: string; name?: string }).title ?? (c as { name?: string }).name ?? "canned reply"}”`}
                </Button>
              ))}
            </div>
          </form>
        </section>
      ) : null}
      <CopyAsCode op="list_support_conversations" path={{ project }} input={{ status }} />
    </>
  );
}

export function ActivityPage() {
  const { sb } = useDashboard();
  const team = useQuery({ queryKey: ["team"], queryFn: () => sb.teams.retrieveCurrent() });
  const projects = useQuery({ queryKey: ["projects"], queryFn: () => sb.projects.list({ per_page: 100 }) });
  const [subject, setSubject] = useState("");
  const teamId = team.data?.data.id;
  // The log is kept per subject: the team's own entries, or a project's.
  const [subjectType, subjectId] = subject ? ["project", subject] : ["team", teamId ?? ""];
  const query = { subject_type: subjectType as "team", subject_id: subjectId, limit: 100 };
  const log = useQuery({ enabled: Boolean(subjectId), queryKey: ["activity", subjectType, subjectId], queryFn: () => sb.activity.list(query) });
  return (
    <>
      <h1>Activity</h1>
      <SelectField
        label="Show the changes of"
        name="subject"
        value={subject}
        onChange={setSubject}
        options={[{ value: "", label: "The team" }, ...(projects.data?.data ?? []).map((p) => ({ value: p.id, label: `The project ${p.name}` }))]}
      />
      <ErrorNote error={log.error} />
      <DataTable
        caption="Latest changes"
        rows={log.data?.data}
        rowKey={(e) => e.id}
        columns={[
          { header: "When", cell: (e) => formatDate(e.created_at) },
          { header: "What", cell: (e) => e.description },
          { header: "By", cell: (e) => e.actor_kind },
        ]}
      />
      <CopyAsCode op="get_activity_log" input={query} />
    </>
  );
}
