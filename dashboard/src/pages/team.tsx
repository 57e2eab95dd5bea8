// The team's settings: API tokens (presets derived from the operation table), webhook endpoints
// and their deliveries, members and invitations, alert destinations, and billing.
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RESOURCE_OPERATIONS, WEBHOOK_EVENT_TYPES } from "@subbridge/sdk";
import { useDashboard } from "../context";
import { Button, ConfirmButton, ErrorNote, Field, fieldErrors, Notice, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatDate } from "../format";

const NOT_MINTABLE = new Set(["token:create", "webhook-endpoint:manage"]);
const rows = Object.values(RESOURCE_OPERATIONS);
const abilitiesWhere = (keep: (op: (typeof rows)[number]) => boolean) =>
  [
    ...new Set(
      rows
        .filter(keep)
        .map((op): string | null => op.ability)
        .filter((a): a is string => a !== null && !NOT_MINTABLE.has(a)),
    ),
  ].sort();

/** Presets instead of a hundred boxes: each is the abilities of a set of the API's operations. */
export const TOKEN_PRESETS = {
  read_only: { label: "Read only: every list and view", abilities: abilitiesWhere((op) => !op.write) },
  support: {
    label: "Support: read everything, answer members",
    abilities: abilitiesWhere((op) => !op.write || op.resource === "supportConversations" || op.resource === "cannedReplies"),
  },
  full: { label: "Full: everything the API can do", abilities: abilitiesWhere(() => true) },
} as const;

export function TokensPage() {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: ["tokens"], queryFn: () => sb.tokens.list({ per_page: 100 }) });
  const [name, setName] = useState("");
  const [preset, setPreset] = useState<keyof typeof TOKEN_PRESETS>("read_only");
  const [minted, setMinted] = useState<string | null>(null);
  const body = { name: name.trim(), abilities: [...TOKEN_PRESETS[preset].abilities] };
  const create = useMutation({
    mutationFn: () => sb.tokens.create(body as never),
    onSuccess: (answer) => {
      setMinted(answer.token);
      setName("");
      return client.invalidateQueries({ queryKey: ["tokens"] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => sb.tokens.delete(id),
    onSuccess: () => client.invalidateQueries({ queryKey: ["tokens"] }),
  });
  return (
    <>
      <h1>API tokens</h1>
      <p>Tokens let your scripts and agents use the REST API and the MCP server as this team.</p>
      <ErrorNote error={tokens.error ?? remove.error} />
      <DataTable
        caption="Tokens"
        rows={tokens.data?.data}
        meta={tokens.data?.meta}
        rowKey={(t) => String(t.id)}
        columns={[
          { header: "Name", cell: (t) => t.name },
          { header: "Abilities", cell: (t) => String((t as { abilities?: string[] }).abilities?.length ?? "—") },
          { header: "Last used", cell: (t) => formatDate((t as { last_used_at?: string | null }).last_used_at) },
          {
            header: "Actions",
            cell: (t) => (
              <ConfirmButton
                label="Delete"
                title={`Delete ${t.name}?`}
                confirmLabel="Delete token"
                variant="danger"
                onConfirm={() => remove.mutateAsync(String(t.id))}
              >
                It stops working on its next call.
              </ConfirmButton>
            ),
          },
        ]}
      />
      <h2>New token</h2>
      {minted ? (
        <Notice kind="success">
          <p>Copy it now: it is shown only once.</p>
          <pre tabIndex={0}>
            <code>{minted}</code>
          </pre>
        </Notice>
      ) : null}
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field label="Token name" name="name" value={name} onChange={setName} isRequired error={fieldErrors(create.error).name} />
        <SelectField
          label="Abilities"
          name="preset"
          value={preset}
          onChange={(v) => setPreset(v as keyof typeof TOKEN_PRESETS)}
          options={Object.entries(TOKEN_PRESETS).map(([value, p]) => ({ value, label: `${p.label} (${p.abilities.length})` }))}
        />
        <ErrorNote error={create.error && !fieldErrors(create.error).name ? create.error : null} />
        <Button type="submit">Create token</Button>
        <CopyAsCode op="create_token" input={body} />
      </form>
    </>
  );
}

/** The event groups an endpoint can subscribe to (plan.* covers every plan event); billing.* needs billing:read, which the dashboard does not mint. */
const EVENT_GROUPS = [...new Set(WEBHOOK_EVENT_TYPES.map((t) => `${t.split(".")[0]}.*`))].filter((g) => g !== "billing.*").sort();

export function WebhooksPage() {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const endpoints = useQuery({ queryKey: ["webhooks"], queryFn: () => sb.webhookEndpoints.list({ per_page: 100 }) });
  const [open, setOpen] = useState<string | null>(null);
  const deliveries = useQuery({
    enabled: Boolean(open),
    queryKey: ["deliveries", open],
    queryFn: () => sb.webhookDeliveries.list(open!, { per_page: 50 }),
  });
  const [form, setForm] = useState({ name: "", url: "" });
  const [events, setEvents] = useState<string[]>(["member.*", "payment.*", "subscription.*"]);
  const body = { name: form.name.trim(), url: form.url.trim(), events };
  const create = useMutation({
    mutationFn: () => sb.webhookEndpoints.create(body as never),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks"] }),
  });
  const replay = useMutation({
    mutationFn: (id: string) => sb.webhookDeliveries.replay(id),
    onSuccess: () => client.invalidateQueries({ queryKey: ["deliveries"] }),
  });
  const retryDead = useMutation({
    mutationFn: () => sb.webhookDeliveries.retryDead(open ? { endpoint_id: open } : {}),
    onSuccess: () => client.invalidateQueries({ queryKey: ["deliveries"] }),
  });
  const problems = fieldErrors(create.error);
  return (
    <>
      <h1>Webhooks</h1>
      <ErrorNote error={endpoints.error ?? retryDead.error ?? replay.error} />
      <DataTable
        caption="Endpoints"
        rows={endpoints.data?.data}
        meta={endpoints.data?.meta}
        rowKey={(e) => e.id}
        columns={[
          { header: "Name", cell: (e) => e.name },
          { header: "URL", cell: (e) => <code>{e.url}</code> },
          {
            header: "Deliveries",
            cell: (e) => (
              <Button variant="secondary" aria-label={`Deliveries of ${e.name}`} onPress={() => setOpen(e.id)}>
                Show
              </Button>
            ),
          },
        ]}
      />
      {open ? (
        <>
          <DataTable
            caption="Deliveries"
            rows={deliveries.data?.data}
            meta={deliveries.data?.meta}
            rowKey={(d) => d.id}
            columns={[
              { header: "Event", cell: (d) => String((d as { event_type?: string }).event_type ?? "—") },
              { header: "Status", cell: (d) => String((d as { status?: string }).status) },
              { header: "Attempts", cell: (d) => String((d as { attempts?: number }).attempts ?? "—") },
              { header: "Created", cell: (d) => formatDate((d as { created_at?: string }).created_at) },
              {
                header: "Replay",
                cell: (d) => (
                  <Button variant="secondary" aria-label={`Replay delivery ${d.id}`} onPress={() => replay.mutate(d.id)}>
                    Replay
                  </Button>
                ),
              },
            ]}
          />
          <Button variant="secondary" onPress={() => retryDead.mutate()}>
            Retry the dead deliveries
          </Button>
        </>
      ) : null}
      <h2>New endpoint</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field label="Name" name="name" value={form.name} onChange={(name) => setForm({ ...form, name })} isRequired error={problems.name} />
        <Field
          label="URL"
          name="url"
          type="url"
          value={form.url}
          onChange={(url) => setForm({ ...form, url })}
          isRequired
          error={problems.url}
          description="An https address on a public host"
        />
        <fieldset className="events">
          <legend>Events</legend>
          {EVENT_GROUPS.map((group) => (
            <label key={group}>
              <input
                type="checkbox"
                checked={events.includes(group)}
                onChange={(e) => setEvents(e.target.checked ? [...events, group] : events.filter((g) => g !== group))}
              />{" "}
              {group}
            </label>
          ))}
          {problems.events ? <span className="field-error">{problems.events}</span> : null}
        </fieldset>
        <ErrorNote error={create.error && !Object.keys(problems).length ? create.error : null} />
        <Button type="submit">Add endpoint</Button>
        <CopyAsCode op="create_webhook_endpoint" input={body} />
      </form>
    </>
  );
}

export function TeamPage() {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const team = useQuery({ queryKey: ["team"], queryFn: () => sb.teams.retrieveCurrent() });
  const teamId = team.data?.data.id;
  const members = useQuery({ enabled: Boolean(teamId), queryKey: ["team-members", teamId], queryFn: () => sb.teamMembers.list(teamId!) });
  const invitations = useQuery({
    enabled: Boolean(teamId),
    queryKey: ["invitations", teamId],
    queryFn: () => sb.teamInvitations.list(teamId!, { per_page: 100 }),
  });
  const roles = useQuery({ queryKey: ["roles"], queryFn: () => sb.roles.list({ per_page: 100 }) });
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("member");
  const invite = useMutation({
    mutationFn: () => sb.teamMembers.invite(teamId!, { email: email.trim(), role }),
    onSuccess: () => {
      setEmail("");
      return client.invalidateQueries({ queryKey: ["invitations", teamId] });
    },
  });
  const withdraw = useMutation({
    mutationFn: (id: string) => sb.teamInvitations.withdraw(teamId!, id),
    onSuccess: () => client.invalidateQueries({ queryKey: ["invitations", teamId] }),
  });
  return (
    <>
      <h1>Team</h1>
      <p>
        {team.data ? (
          <>
            The team <strong>{team.data.data.name}</strong>.
          </>
        ) : null}
      </p>
      <ErrorNote error={members.error ?? invitations.error ?? withdraw.error} />
      <DataTable
        caption="Members"
        rows={(members.data?.data ?? undefined) as { id?: string; user_id?: string; email?: string; role?: string }[] | undefined}
        rowKey={(m) => String(m.user_id ?? m.id)}
        columns={[
          { header: "Email", cell: (m) => m.email ?? "—" },
          { header: "Role", cell: (m) => String(m.role ?? "—") },
        ]}
      />
      <DataTable
        caption="Invitations"
        rows={invitations.data?.data as { id: string; email?: string; role?: string; expires_at?: string }[] | undefined}
        rowKey={(i) => i.id}
        empty="No invitation waiting."
        columns={[
          { header: "Email", cell: (i) => i.email ?? "—" },
          { header: "Role", cell: (i) => String(i.role ?? "—") },
          { header: "Expires", cell: (i) => formatDate(i.expires_at) },
          {
            header: "Actions",
            cell: (i) => (
              <Button variant="secondary" aria-label={`Withdraw ${i.email}`} onPress={() => withdraw.mutate(i.id)}>
                Withdraw
              </Button>
            ),
          },
        ]}
      />
      <h2>Invite someone</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate();
        }}
      >
        <Field label="Email" name="email" type="email" value={email} onChange={setEmail} isRequired error={fieldErrors(invite.error).email} />
        <SelectField
          label="Role"
          name="role"
          value={role}
          onChange={setRole}
          options={[
            { value: "", label: "Default role" },
            ...((roles.data?.data ?? []) as { id: string; name: string; key?: string }[]).map((r) => ({ value: r.key ?? r.name, label: r.name })),
          ]}
        />
        <ErrorNote error={invite.error && !fieldErrors(invite.error).email ? invite.error : null} />
        <Button type="submit" isDisabled={!teamId}>
          Send invitation
        </Button>
        {teamId ? <CopyAsCode op="invite_team_member" path={{ team: teamId }} input={{ email: email || "someone@example.com", role }} /> : null}
      </form>
    </>
  );
}

export function AlertsPage() {
  const { sb } = useDashboard();
  const alerts = useQuery({ queryKey: ["alerts"], queryFn: () => sb.me.alertDestinations() });
  return (
    <>
      <h1>Alerts</h1>
      <p>Where SubBridge tells you about failed payments, stuck access and sign-ins.</p>
      <ErrorNote error={alerts.error} />
      <pre tabIndex={0} className="json">
        <code>{alerts.data ? JSON.stringify(alerts.data.data, null, 2) : "Loading…"}</code>
      </pre>
      <CopyAsCode op="list_alert_destinations" />
    </>
  );
}

export function BillingPage() {
  const { config } = useDashboard();
  return (
    <>
      <h1>Billing</h1>
      <p>
        Your tier (Free, Starter, Growth) and its payments are managed on your account: the service description keeps a creator's own billing off the
        API.
      </p>
      <p>
        <a className="btn primary" href={`${config.authUrl}/billing`}>
          Open billing
        </a>
      </p>
    </>
  );
}
