// Money and people: payment methods and transactions, the support inbox, the activity log.
import { useState } from "react";
import { useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, ConfirmButton, ErrorNote, Field, fieldErrors, SelectField } from "../ui/kit";
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
          <ConversationActions project={project} conversation={(conversations.data?.data ?? []).find((c) => c.id === open) ?? null} />
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
      <CannedReplies project={project} />
    </>
  );
}

/** Assign (or unassign) a conversation to a team member, close it or reopen it: update_support_conversation. */
function ConversationActions({
  project,
  conversation,
}: {
  project: string;
  conversation: { id: string; status: string; assignee_id: string | null } | null;
}) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const team = useQuery({ queryKey: ["team"], queryFn: () => sb.teams.retrieveCurrent() });
  const teamId = team.data?.data.id;
  const members = useQuery({ enabled: Boolean(teamId), queryKey: ["team-members", teamId], queryFn: () => sb.teamMembers.list(teamId!) });
  const update = useMutation({
    mutationFn: (body: { assignee_id?: string | null; status?: "open" | "closed" }) =>
      sb.supportConversations.update(project, conversation!.id, body),
    onSuccess: () => client.invalidateQueries({ queryKey: ["support", project] }),
  });
  if (!conversation) return null;
  const people = ((members.data?.data ?? []) as { user_id: string; email?: string }[]).map((m) => ({
    value: m.user_id,
    label: m.email ?? m.user_id,
  }));
  const next = conversation.status === "open" ? "closed" : "open";
  return (
    <div className="stack">
      <ErrorNote error={update.error} />
      <div className="row">
        <SelectField
          label="Assigned to"
          name="assignee_id"
          value={conversation.assignee_id ?? ""}
          onChange={(value) => update.mutate({ assignee_id: value || null })}
          options={[{ value: "", label: "Nobody" }, ...people]}
          error={fieldErrors(update.error).assignee_id}
        />
        <Button variant="secondary" onPress={() => update.mutate({ status: next })} isDisabled={update.isPending}>
          {next === "closed" ? "Close conversation" : "Reopen conversation"}
        </Button>
      </div>
      <CopyAsCode op="update_support_conversation" path={{ project, conversation: conversation.id }} input={{ status: next }} />
    </div>
  );
}

/** The project's canned replies: listed by the server's pages, created, changed and deleted. */
function CannedReplies({ project }: { project: string }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<{ id: string; title: string; body: string } | null>(null);
  const [form, setForm] = useState({ title: "", body: "" });
  const replies = useQuery({ queryKey: ["canned", project, "page", page], queryFn: () => sb.cannedReplies.list(project, { page, per_page: 25 }) });
  const refresh = () => client.invalidateQueries({ queryKey: ["canned", project] });
  const input = { title: form.title.trim(), body: form.body };
  const save = useMutation({
    mutationFn: () => (editing ? sb.cannedReplies.update(project, editing.id, input) : sb.cannedReplies.create(project, input)),
    onSuccess: () => {
      setEditing(null);
      setForm({ title: "", body: "" });
      return refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: string) => sb.cannedReplies.delete(project, id), onSuccess: refresh });
  const problems = fieldErrors(save.error);
  return (
    <section className="stack" aria-labelledby="canned-replies">
      <h2 id="canned-replies">Canned replies</h2>
      <ErrorNote error={replies.error ?? remove.error} />
      <DataTable
        caption="Canned replies"
        rows={replies.data?.data}
        meta={replies.data?.meta}
        onPage={setPage}
        rowKey={(r) => r.id}
        empty="No canned reply yet."
        columns={[
          { header: "Title", cell: (r) => r.title },
          { header: "Text", cell: (r) => (r.body.length > 80 ? `${r.body.slice(0, 80)}…` : r.body) },
          {
            header: "Actions",
            cell: (r) => (
              <div className="actions">
                <Button
                  variant="secondary"
                  aria-label={`Change ${r.title}`}
                  onPress={() => {
                    setEditing(r);
                    setForm({ title: r.title, body: r.body });
                  }}
                >
                  Change
                </Button>
                <ConfirmButton
                  label={`Delete ${r.title}`}
                  title={`Delete the canned reply ${r.title}?`}
                  confirmLabel="Delete reply"
                  variant="danger"
                  onConfirm={() => remove.mutateAsync(r.id)}
                >
                  It is no longer offered when answering.
                </ConfirmButton>
              </div>
            ),
          },
        ]}
      />
      <CopyAsCode op="list_canned_replies" path={{ project }} input={{ page, per_page: 25 }} />
      <CopyAsCode op="delete_canned_reply" path={{ project }} label="Copy delete as code" />
      <form
        className="stack"
        aria-labelledby="canned-form"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <h3 id="canned-form">{editing ? `Change ${editing.title}` : "New canned reply"}</h3>
        <Field
          label="Reply title"
          name="title"
          value={form.title}
          onChange={(title) => setForm({ ...form, title })}
          isRequired
          error={problems.title}
        />
        <Field
          label="Reply text"
          name="body"
          value={form.body}
          onChange={(body) => setForm({ ...form, body })}
          multiline
          isRequired
          error={problems.body}
        />
        <ErrorNote error={save.error && !Object.keys(problems).length ? save.error : null} />
        <div className="actions">
          <Button type="submit" isDisabled={save.isPending}>
            {editing ? "Save canned reply" : "Create canned reply"}
          </Button>
          {editing ? (
            <Button
              variant="secondary"
              onPress={() => {
                setEditing(null);
                setForm({ title: "", body: "" });
              }}
            >
              Cancel
            </Button>
          ) : null}
        </div>
        <CopyAsCode
          op={editing ? "update_canned_reply" : "create_canned_reply"}
          path={editing ? { project, canned_reply: editing.id } : { project }}
          input={input}
        />
      </form>
    </section>
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
