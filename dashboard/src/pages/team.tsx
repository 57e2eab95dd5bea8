// The team's settings: API tokens (presets derived from the operation table), webhook endpoints
// and their deliveries, members and invitations, alert destinations, and billing.
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RESOURCE_OPERATIONS, WEBHOOK_EVENT_TYPES } from "@subbridge/sdk";
import { useDashboard } from "../context";
import { Button, Checkbox, ConfirmButton, ErrorNote, Field, fieldErrors, Notice, SelectField } from "../ui/kit";
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
  const [page, setPage] = useState(1);
  const endpoints = useQuery({ queryKey: ["webhooks", page], queryFn: () => sb.webhookEndpoints.list({ page, per_page: 25 }) });
  const [open, setOpen] = useState<string | null>(null);
  const [managed, setManaged] = useState<string | null>(null);
  const managedEndpoint = endpoints.data?.data.find((e) => e.id === managed);
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
        onPage={setPage}
        rowKey={(e) => e.id}
        columns={[
          { header: "Name", cell: (e) => e.name },
          { header: "URL", cell: (e) => <code>{e.url}</code> },
          { header: "Active", cell: (e) => (e.is_active ? "yes" : "no") },
          {
            header: "Actions",
            cell: (e) => (
              <div className="actions">
                <Button variant="secondary" aria-label={`Deliveries of ${e.name}`} onPress={() => setOpen(e.id)}>
                  Deliveries
                </Button>
                <Button variant="secondary" aria-label={`Manage ${e.name}`} onPress={() => setManaged(e.id)}>
                  Manage
                </Button>
              </div>
            ),
          },
        ]}
      />
      <CopyAsCode op="list_webhook_endpoints" input={{ page, per_page: 25 }} />
      {managedEndpoint ? (
        <ManageEndpoint key={`${managedEndpoint.id}-${managedEndpoint.updated_at}`} endpoint={managedEndpoint} onGone={() => setManaged(null)} />
      ) : null}
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
        <EventGroups legend="Events" value={events} onChange={setEvents} error={problems.events} />
        <ErrorNote error={create.error && !Object.keys(problems).length ? create.error : null} />
        <Button type="submit">Add endpoint</Button>
        <CopyAsCode op="create_webhook_endpoint" input={body} />
      </form>
    </>
  );
}

function EventGroups(props: { legend: string; value: string[]; onChange: (value: string[]) => void; error?: string | undefined }) {
  // An endpoint may hold single event types too: they stay listed so a save keeps them.
  const groups = [...new Set([...EVENT_GROUPS, ...props.value])].sort();
  return (
    <fieldset className="events">
      <legend>{props.legend}</legend>
      {groups.map((group) => (
        <label key={group}>
          <input
            type="checkbox"
            checked={props.value.includes(group)}
            onChange={(e) => props.onChange(e.target.checked ? [...props.value, group] : props.value.filter((g) => g !== group))}
          />{" "}
          {group}
        </label>
      ))}
      {props.error ? <span className="field-error">{props.error}</span> : null}
    </fieldset>
  );
}

/** One endpoint's changes: rename, events, pause or resume; send a test event; rotate its secret (shown once); delete it. */
function ManageEndpoint({ endpoint, onGone }: { endpoint: { id: string; name: string; events: string[]; is_active: boolean }; onGone: () => void }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [name, setName] = useState(endpoint.name);
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [active, setActive] = useState(endpoint.is_active);
  const [secret, setSecret] = useState<string | null>(null);
  const body: Record<string, unknown> = {};
  if (name.trim() !== endpoint.name) body.name = name.trim();
  if ([...events].sort().join() !== [...endpoint.events].sort().join()) body.events = events;
  if (active !== endpoint.is_active) body.is_active = active;
  const refresh = () => client.invalidateQueries({ queryKey: ["webhooks"] });
  const path = { webhook_endpoint: endpoint.id };
  const update = useMutation({ mutationFn: () => sb.webhookEndpoints.update(endpoint.id, body as never), onSuccess: refresh });
  const test = useMutation({ mutationFn: () => sb.webhookEndpoints.test(endpoint.id, { maxRetries: 0 }) });
  const rotate = useMutation({ mutationFn: () => sb.webhookEndpoints.rotateSecret(endpoint.id), onSuccess: (answer) => setSecret(answer.secret) });
  const remove = useMutation({
    mutationFn: () => sb.webhookEndpoints.delete(endpoint.id),
    onSuccess: async () => {
      onGone();
      await refresh();
    },
  });
  const problems = fieldErrors(update.error);
  const result = test.data?.data;
  return (
    <section className="stack" aria-labelledby="manage-endpoint">
      <h2 id="manage-endpoint">Manage {endpoint.name}</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (Object.keys(body).length) update.mutate();
        }}
      >
        <Field label="Endpoint name" name="name" value={name} onChange={setName} isRequired error={problems.name} />
        <EventGroups legend="Endpoint events" value={events} onChange={setEvents} error={problems.events} />
        <Checkbox name="is_active" isSelected={active} onChange={setActive}>
          Active (unticked pauses deliveries)
        </Checkbox>
        <ErrorNote error={update.error && !Object.keys(problems).length ? update.error : null} />
        <Button type="submit" isDisabled={update.isPending || !Object.keys(body).length}>
          Save endpoint
        </Button>
        <CopyAsCode op="update_webhook_endpoint" path={path} input={Object.keys(body).length ? body : { is_active: active }} />
      </form>
      <h3>Test and secret</h3>
      <ErrorNote error={test.error ?? rotate.error ?? remove.error} />
      {result ? (
        <Notice kind={result.delivered ? "success" : "info"}>
          The test event {result.event_type} was {result.delivered ? "delivered" : "not accepted"}: status {result.response_status} in{" "}
          {result.duration_ms} ms.
        </Notice>
      ) : null}
      {secret ? (
        <Notice kind="success">
          <p>The new signing secret. Copy it now: it is shown only once, and the old one no longer verifies.</p>
          <pre tabIndex={0}>
            <code>{secret}</code>
          </pre>
        </Notice>
      ) : null}
      <div className="actions">
        <Button variant="secondary" onPress={() => test.mutate()} isDisabled={test.isPending}>
          Send a test event
        </Button>
        <ConfirmButton label="Rotate secret" title="Rotate the signing secret?" confirmLabel="Rotate" onConfirm={() => rotate.mutateAsync()}>
          The old secret stops verifying at once: update your receiver with the new one.
        </ConfirmButton>
        <ConfirmButton
          label="Delete endpoint"
          title={`Delete ${endpoint.name}?`}
          confirmLabel="Delete endpoint"
          variant="danger"
          onConfirm={() => remove.mutateAsync()}
        >
          No more events are sent to it.
        </ConfirmButton>
      </div>
      <CopyAsCode op="test_webhook_endpoint" path={path} label="Copy test as code" />
      <CopyAsCode op="rotate_webhook_endpoint_secret" path={path} label="Copy rotate as code" />
      <CopyAsCode op="delete_webhook_endpoint" path={path} label="Copy delete as code" />
    </section>
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

const ALERT_CLASSES = ["sales", "support", "recovery", "billing", "security", "passes", "onboarding"] as const;

interface DestinationRow {
  key: number;
  kind: "connector_identity" | "email";
  target: string;
  /** null: every class. */
  classes: string[] | null;
}

let nextRow = 0;

export function AlertsPage() {
  const { sb, config } = useDashboard();
  const client = useQueryClient();
  const alerts = useQuery({ queryKey: ["alerts"], queryFn: () => sb.me.alertDestinations() });
  const identities = useQuery({ queryKey: ["identities"], queryFn: () => sb.me.identities() });
  const [rows, setRows] = useState<DestinationRow[] | null>(null);
  const loaded: DestinationRow[] = (alerts.data?.data ?? [])
    .filter((d) => d.kind !== "push_device")
    .map((d, i) => ({ key: -(i + 1), kind: d.kind as DestinationRow["kind"], target: d.target, classes: d.classes ?? null }));
  const shown = rows ?? loaded;
  const body = { destinations: shown.map((r) => ({ kind: r.kind, target: r.target.trim(), classes: r.classes })) };
  const save = useMutation({
    mutationFn: () => sb.me.replaceAlertDestinations(body as never),
    onSuccess: async () => {
      setRows(null);
      await client.invalidateQueries({ queryKey: ["alerts"] });
    },
  });
  const problems = fieldErrors(save.error);
  const change = (key: number, patch: Partial<DestinationRow>) => setRows(shown.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const accounts = (identities.data?.data ?? []).map((i) => ({ value: i.account_id, label: `${i.connector}: ${i.display_name ?? i.account_id}` }));
  return (
    <>
      <h1>Alerts</h1>
      <p>
        Where SubBridge tells you about sales, support, failed payments, stuck access and sign-ins. With no destination, every alert goes to your
        primary connected account, and recovery, billing and security also to your email.
      </p>
      <p>
        {/* Linking happens on the account host, where the creator's session is (the platform's sign-in answers there). */}
        Connect an account to get alerts there: <a href={`${config.authUrl}/identities`}>Link Telegram</a> or{" "}
        <a href={`${config.authUrl}/identities/discord/start`}>Link Discord</a>.
      </p>
      <ErrorNote error={alerts.error ?? identities.error} />
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        {shown.length ? null : <Notice kind="info">The default routing applies.</Notice>}
        {shown.map((row, i) => (
          <fieldset key={row.key} className="destination">
            <legend>Destination {i + 1}</legend>
            <div className="row">
              <SelectField
                label={`Destination ${i + 1} kind`}
                name="kind"
                value={row.kind}
                onChange={(kind) => change(row.key, { kind: kind as DestinationRow["kind"], target: "" })}
                options={[
                  { value: "connector_identity", label: "A connected account" },
                  { value: "email", label: "Email" },
                ]}
                error={problems[`destinations.${i}.kind`]}
              />
              {row.kind === "connector_identity" && accounts.length ? (
                <SelectField
                  label={`Destination ${i + 1} account`}
                  name="target"
                  value={row.target}
                  onChange={(target) => change(row.key, { target })}
                  options={[{ value: "", label: "Choose an account" }, ...accounts]}
                  error={problems[`destinations.${i}.target`]}
                />
              ) : (
                <Field
                  label={`Destination ${i + 1} ${row.kind === "email" ? "email address" : "account id"}`}
                  name="target"
                  type={row.kind === "email" ? "email" : "text"}
                  value={row.target}
                  onChange={(target) => change(row.key, { target })}
                  error={problems[`destinations.${i}.target`]}
                  description={row.kind === "email" ? "Your own account's address" : "A linked account's id"}
                />
              )}
            </div>
            <label>
              <input type="checkbox" checked={row.classes === null} onChange={(e) => change(row.key, { classes: e.target.checked ? null : [] })} />{" "}
              Every kind of alert
            </label>
            {row.classes !== null ? (
              <div className="events" role="group" aria-label={`Destination ${i + 1} alert kinds`}>
                {ALERT_CLASSES.map((c) => (
                  <label key={c}>
                    <input
                      type="checkbox"
                      checked={row.classes!.includes(c)}
                      onChange={(e) => change(row.key, { classes: e.target.checked ? [...row.classes!, c] : row.classes!.filter((x) => x !== c) })}
                    />{" "}
                    {c}
                  </label>
                ))}
              </div>
            ) : null}
            {problems[`destinations.${i}.classes`] ? <span className="field-error">{problems[`destinations.${i}.classes`]}</span> : null}
            <ConfirmButton
              label={`Remove destination ${i + 1}`}
              title={`Remove destination ${i + 1}?`}
              confirmLabel="Remove"
              variant="danger"
              onConfirm={() => setRows(shown.filter((r) => r.key !== row.key))}
            >
              It is removed when you save the list.
            </ConfirmButton>
          </fieldset>
        ))}
        {problems.destinations ? <span className="field-error">{problems.destinations}</span> : null}
        <ErrorNote error={save.error && !Object.keys(problems).length ? save.error : null} />
        <div className="actions">
          <Button
            variant="secondary"
            onPress={() => setRows([...shown, { key: nextRow++, kind: accounts.length ? "connector_identity" : "email", target: "", classes: null }])}
          >
            Add a destination
          </Button>
          <Button type="submit" isDisabled={save.isPending || rows === null}>
            Save destinations
          </Button>
        </div>
        <CopyAsCode op="list_alert_destinations" />
        <CopyAsCode op="replace_alert_destinations" input={body} label="Copy save as code" />
      </form>
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
