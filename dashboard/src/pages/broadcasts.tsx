// The project's Broadcasts (issue 46): compose a message (text, optional image and portal button)
// for a segment (plan, subscription status, join dates), send a test to yourself first, send it
// now or schedule it; the list shows each broadcast's totals, a broadcast's detail its recipients
// with their status, and a scheduled one can be cancelled. Every call goes through sb.broadcasts.
import { useState } from "react";
import { useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { components } from "@subbridge/sdk";
import { useDashboard } from "../context";
import { formatDate } from "../format";
import { Button, ConfirmButton, ErrorNote, Field, fieldErrors, Notice, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";

type Broadcast = components["schemas"]["Broadcast"];
type BroadcastCreate = components["schemas"]["BroadcastCreate"];
type SubscriptionStatus = components["schemas"]["BroadcastSubscriptionStatus"];

const broadcastsKey = (project: string) => ["broadcasts", project];

const STATUSES = [
  { value: "", label: "Any subscription status" },
  { value: "active", label: "Active" },
  { value: "trialing", label: "Trialing" },
  { value: "past_due", label: "Past due" },
  { value: "canceled", label: "Canceled (still in their period)" },
  { value: "expired", label: "Expired" },
];

/** "2026-12-01 09:00" (UTC) or an ISO time as the API takes it; "" stays empty. */
function isoOf(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const date = new Date(
    /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?$/.test(trimmed) ? `${trimmed.replace(" ", "T")}${trimmed.length > 10 ? "" : "T00:00"}:00Z` : trimmed,
  );
  return Number.isNaN(date.getTime()) ? trimmed : date.toISOString();
}

const totalsText = (b: Broadcast) => {
  const t = b.totals;
  return `${t.sent} sent · ${t.queued} queued · ${t.blocked} blocked · ${t.failed} failed · ${t.opted_out} opted out (of ${t.recipients})`;
};

function Compose({ project }: { project: string }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const plans = useQuery({ queryKey: ["plans", project], queryFn: () => sb.plans.list(project, { per_page: 100 }) });
  const [text, setText] = useState("");
  const [image, setImage] = useState("");
  const [button, setButton] = useState("");
  const [plan, setPlan] = useState("");
  const [status, setStatus] = useState("");
  const [after, setAfter] = useState("");
  const [before, setBefore] = useState("");
  const [sendAt, setSendAt] = useState("");
  const body = (test: boolean): BroadcastCreate => ({
    text,
    ...(image.trim() ? { image_url: image.trim() } : {}),
    ...(button.trim() ? { buttons: [[{ label: button.trim(), target: "portal" }]] } : {}),
    segment: {
      ...(plan ? { plan_ids: [plan] } : {}),
      ...(status ? { subscription_statuses: [status as SubscriptionStatus] } : {}),
      ...(after.trim() ? { joined_after: isoOf(after) } : {}),
      ...(before.trim() ? { joined_before: isoOf(before) } : {}),
    },
    send_at: test ? null : isoOf(sendAt),
    test,
  });
  const refresh = () => client.invalidateQueries({ queryKey: broadcastsKey(project) });
  const test = useMutation({ mutationFn: () => sb.broadcasts.create(project, body(true)), onSuccess: refresh });
  const send = useMutation({ mutationFn: () => sb.broadcasts.create(project, body(false)), onSuccess: refresh });
  const errors = fieldErrors(send.error ?? test.error);
  return (
    <section aria-labelledby="compose" className="stack">
      <h2 id="compose">New broadcast</h2>
      <Field label="Message" name="text" value={text} onChange={setText} multiline isRequired error={errors.text} />
      <Field
        label="Image address (optional)"
        name="image_url"
        type="url"
        value={image}
        onChange={setImage}
        error={errors.image_url}
        description="An https address; the message opens with it and the platform shows its preview."
      />
      <Field
        label="Portal button (optional)"
        name="button"
        value={button}
        onChange={setButton}
        error={errors.buttons ?? errors["buttons.0"]}
        description="A label such as “Your membership”: a line linking to the member's account page."
      />
      <SelectField
        label="Plan"
        name="plan"
        value={plan}
        onChange={setPlan}
        options={[{ value: "", label: "Every plan (and none)" }, ...(plans.data?.data ?? []).map((p) => ({ value: p.id, label: p.name }))]}
      />
      <SelectField label="Subscription status" name="status" value={status} onChange={setStatus} options={STATUSES} />
      <Field
        label="Joined after (UTC, optional)"
        name="joined_after"
        value={after}
        onChange={setAfter}
        error={errors["segment.joined_after"]}
        description="2026-11-01 or 2026-11-01 09:00"
      />
      <Field label="Joined before (UTC, optional)" name="joined_before" value={before} onChange={setBefore} error={errors["segment.joined_before"]} />
      <Field
        label="Send at (UTC, optional)"
        name="send_at"
        value={sendAt}
        onChange={setSendAt}
        error={errors.send_at}
        description="Empty sends now."
      />
      {errors["segment.connectors"] ? <Notice kind="error">{errors["segment.connectors"]}</Notice> : null}
      {/* Only the last action's outcome is shown: pressing one button clears the other's. */}
      <ErrorNote error={send.error ?? test.error} />
      {test.isSuccess ? <Notice kind="success">Test sent to your own linked account.</Notice> : null}
      {send.isSuccess ? (
        <Notice kind="success">{send.data.data.status === "scheduled" ? "Broadcast scheduled." : "Broadcast is sending."}</Notice>
      ) : null}
      <div className="actions">
        <Button
          variant="secondary"
          isDisabled={!text.trim() || test.isPending}
          onPress={() => {
            send.reset();
            test.mutate();
          }}
        >
          Send test to me
        </Button>
        <Button
          isDisabled={!text.trim() || send.isPending}
          onPress={() => {
            test.reset();
            send.mutate();
          }}
        >
          {sendAt.trim() ? "Schedule" : "Send now"}
        </Button>
      </div>
      <p className="hint">Members who sent /stop to the bot are counted as opted out and receive nothing.</p>
      <CopyAsCode op="create_broadcast" path={{ project }} input={body(false)} />
    </section>
  );
}

function Recipients({ project, broadcast }: { project: string; broadcast: Broadcast }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(1);
  const recipients = useQuery({
    queryKey: ["broadcast-recipients", broadcast.id, status, page],
    queryFn: () => sb.broadcasts.listRecipients(project, broadcast.id, { page, per_page: 50, ...(status ? { status: status as never } : {}) }),
  });
  const cancel = useMutation({
    mutationFn: () => sb.broadcasts.cancel(project, broadcast.id),
    onSuccess: () => client.invalidateQueries({ queryKey: broadcastsKey(project) }),
  });
  return (
    <section aria-labelledby="detail" className="stack">
      <h2 id="detail">Broadcast of {formatDate(broadcast.send_at)}</h2>
      <p>{broadcast.text}</p>
      <p className="hint">
        {broadcast.status} · {totalsText(broadcast)}
      </p>
      {broadcast.status === "scheduled" ? (
        <ConfirmButton
          label="Cancel broadcast"
          title="Cancel this broadcast?"
          confirmLabel="Cancel it"
          variant="danger"
          onConfirm={() => cancel.mutateAsync()}
        >
          Nobody receives it. A broadcast that started sending cannot be called back.
        </ConfirmButton>
      ) : null}
      <ErrorNote error={cancel.error ?? recipients.error} />
      <SelectField
        label="Recipients"
        name="recipient_status"
        value={status}
        onChange={(v) => {
          setStatus(v);
          setPage(1);
        }}
        options={[
          { value: "", label: "All" },
          ...["queued", "sent", "blocked", "failed", "opted_out"].map((s) => ({ value: s, label: s.replace("_", " ") })),
        ]}
      />
      <DataTable
        caption="Recipients"
        rows={recipients.data?.data}
        meta={recipients.data?.meta}
        onPage={setPage}
        rowKey={(r) => r.id}
        empty={broadcast.status === "scheduled" ? "Recipients are chosen when it starts sending." : "No recipient in this status."}
        columns={[
          { header: "Account", cell: (r) => `${r.connector} ${r.platform_user_id}` },
          { header: "Member", cell: (r) => r.member_id ?? "you (test)" },
          { header: "Status", cell: (r) => r.status.replace("_", " ") },
          { header: "Sent", cell: (r) => (r.sent_at ? formatDate(r.sent_at) : (r.error ?? "—")) },
        ]}
      />
    </section>
  );
}

export function BroadcastsPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb } = useDashboard();
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const list = useQuery({
    queryKey: [...broadcastsKey(project), page],
    queryFn: () => sb.broadcasts.list(project, { page, per_page: 25 }),
    // Totals move while a broadcast is sending.
    refetchInterval: (query) => (query.state.data?.data.some((b) => b.status === "sending") ? 2000 : false),
  });
  const selected = list.data?.data.find((b) => b.id === open);
  return (
    <>
      <h1>Broadcasts</h1>
      <Compose project={project} />
      <ErrorNote error={list.error} />
      <DataTable
        caption="Broadcasts"
        rows={list.data?.data}
        meta={list.data?.meta}
        onPage={setPage}
        rowKey={(b) => b.id}
        empty="No broadcast yet."
        columns={[
          { header: "Message", cell: (b) => `${b.test ? "[test] " : ""}${b.text.slice(0, 60)}` },
          { header: "When", cell: (b) => formatDate(b.send_at) },
          { header: "Status", cell: (b) => b.status },
          { header: "Totals", cell: totalsText },
          {
            header: "Open",
            cell: (b) => (
              <Button variant="secondary" aria-label={`Recipients of the broadcast of ${formatDate(b.send_at)}`} onPress={() => setOpen(b.id)}>
                Recipients
              </Button>
            ),
          },
        ]}
      />
      {selected ? <Recipients project={project} broadcast={selected} /> : null}
      <CopyAsCode op="list_broadcasts" path={{ project }} />
    </>
  );
}
