// What a project sells and gates: plans, places (resources), coupons, access codes, connectors,
// and where members join.
import { useState } from "react";
import { useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, Checkbox, ConfirmButton, ErrorNote, Field, fieldErrors, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";
import { decimalsOf, formatDate, formatMoney, formatPrice, parseMajor } from "../format";
import { PlanForm } from "./setup";
import { CURRENCIES, PlanTermsFields } from "../ui/plan-fields";
import { ShareLinks } from "./share-links";
import { useConnectorCatalog } from "./connectors";

function useProject() {
  return (useParams({ strict: false }) as { project: string }).project;
}

export function PlansPage() {
  const project = useProject();
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<string | null>(null);
  const [windowsOf, setWindowsOf] = useState<string | null>(null);
  const plans = useQuery({ queryKey: ["plans", project, page], queryFn: () => sb.plans.list(project, { page, per_page: 25 }) });
  const resources = useQuery({ queryKey: ["resources", project], queryFn: () => sb.resources.list(project, { per_page: 100 }) });
  const refresh = () => client.invalidateQueries({ queryKey: ["plans", project] });
  const act = useMutation({
    mutationFn: ({ plan, action }: { plan: string; action: "publish" | "archive" }) =>
      action === "publish" ? sb.plans.publish(project, plan) : sb.plans.archive(project, plan),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (plan: string) => sb.plans.delete(project, plan),
    onSuccess: (_, plan) => {
      if (editing === plan) setEditing(null);
      if (windowsOf === plan) setWindowsOf(null);
      return refresh();
    },
  });
  const edited = plans.data?.data.find((p) => p.id === editing);
  const windowed = plans.data?.data.find((p) => p.id === windowsOf);
  return (
    <>
      <h1>Plans</h1>
      <ErrorNote error={plans.error ?? act.error ?? remove.error} />
      <DataTable
        caption="Plans"
        rows={plans.data?.data}
        meta={plans.data?.meta}
        onPage={setPage}
        rowKey={(p) => p.id}
        columns={[
          { header: "Name", cell: (p) => p.name },
          { header: "Price", cell: (p) => formatPrice(p.price, p.billing_cycle, p.billing_cycle_count) },
          { header: "Trial", cell: (p) => (p.trial_days ? `${p.trial_days} days` : "—") },
          { header: "Status", cell: (p) => p.status },
          {
            header: "Actions",
            cell: (p) => (
              <div className="actions">
                {p.status === "published" ? (
                  <Button variant="secondary" aria-label={`Archive ${p.name}`} onPress={() => act.mutate({ plan: p.id, action: "archive" })}>
                    Archive
                  </Button>
                ) : (
                  <Button aria-label={`Publish ${p.name}`} onPress={() => act.mutate({ plan: p.id, action: "publish" })}>
                    Publish
                  </Button>
                )}
                <Button variant="secondary" aria-label={`Edit ${p.name}`} onPress={() => setEditing(p.id)}>
                  Edit
                </Button>
                <Button variant="secondary" aria-label={`Pass windows of ${p.name}`} onPress={() => setWindowsOf(p.id)}>
                  Pass windows
                </Button>
                {p.status === "draft" ? (
                  <ConfirmButton
                    label={`Delete ${p.name}`}
                    title={`Delete the draft ${p.name}?`}
                    confirmLabel="Delete plan"
                    variant="danger"
                    onConfirm={() => remove.mutateAsync(p.id)}
                  >
                    The draft and its pass windows are deleted. A plan somebody subscribed to cannot be deleted: archive it instead.
                  </ConfirmButton>
                ) : null}
              </div>
            ),
          },
        ]}
      />
      <CopyAsCode op="list_plans" path={{ project }} input={{ page, per_page: 25 }} />
      <CopyAsCode op="delete_plan" path={{ project }} label="Copy delete as code" />
      {edited ? <EditPlan key={`${edited.id}-${edited.updated_at}`} project={project} plan={edited} onDone={() => setEditing(null)} /> : null}
      {windowed ? <PassWindows key={windowed.id} project={project} plan={windowed} /> : null}
      <h2>New plan</h2>
      {resources.data ? <PlanForm project={project} resourceIds={resources.data.data.map((r) => r.id)} onDone={refresh} /> : null}
    </>
  );
}

interface PlanRow {
  id: string;
  name: string;
  description: string | null;
  price: { amount: number; currency: string };
  billing_cycle: string;
  trial_days: number;
  status: string;
}

/** A plan's changed fields (only what differs is sent; an emptied description is null). */
function EditPlan({ project, plan, onDone }: { project: string; plan: PlanRow; onDone: () => void }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const major = (plan.price.amount / 10 ** decimalsOf(plan.price.currency)).toFixed(decimalsOf(plan.price.currency));
  const [form, setForm] = useState({
    name: plan.name,
    description: plan.description ?? "",
    price: major,
    currency: plan.price.currency,
    cycle: plan.billing_cycle,
    trial: String(plan.trial_days),
  });
  const amount = parseMajor(form.price, form.currency);
  const body: Record<string, unknown> = {};
  if (form.name.trim() !== plan.name) body.name = form.name.trim();
  if (form.description.trim() !== (plan.description ?? "")) body.description = form.description.trim() || null;
  if (amount !== plan.price.amount || form.currency !== plan.price.currency) body.price = { amount: amount ?? 0, currency: form.currency };
  if (form.cycle !== plan.billing_cycle) body.billing_cycle = form.cycle;
  if (form.trial.trim() !== String(plan.trial_days)) body.trial_days = /^\d+$/.test(form.trial.trim()) ? Number(form.trial) : form.trial;
  const update = useMutation({
    mutationFn: () => sb.plans.update(project, plan.id, body as never),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["plans", project] });
      onDone();
    },
  });
  const problems = fieldErrors(update.error);
  const [priceError, setPriceError] = useState<string | undefined>();
  return (
    <form
      className="stack"
      aria-labelledby="edit-plan"
      onSubmit={(e) => {
        e.preventDefault();
        if (amount === null) return setPriceError(`Write the price in ${form.currency}, like 9.00.`);
        setPriceError(undefined);
        if (Object.keys(body).length) update.mutate();
        else onDone();
      }}
    >
      <h2 id="edit-plan">Edit {plan.name}</h2>
      {plan.status !== "draft" ? <p className="hint">Members who already subscribed keep the price and interval they bought.</p> : null}
      <Field label="Plan name" name="name" value={form.name} onChange={(name) => setForm({ ...form, name })} isRequired error={problems.name} />
      <Field
        label="Description"
        name="description"
        value={form.description}
        onChange={(description) => setForm({ ...form, description })}
        multiline
        error={problems.description}
      />
      <PlanTermsFields
        terms={form}
        onChange={(patch) => setForm({ ...form, ...patch })}
        problems={problems}
        priceError={priceError}
        labelPrefix="Plan"
      />
      <ErrorNote error={update.error && !Object.keys(problems).length ? update.error : null} />
      <div className="actions">
        <Button type="submit" isDisabled={update.isPending}>
          Save plan
        </Button>
        <Button variant="secondary" onPress={onDone}>
          Cancel
        </Button>
      </div>
      <CopyAsCode op="update_plan" path={{ project, plan: plan.id }} input={Object.keys(body).length ? body : { name: plan.name }} />
    </form>
  );
}

/** "2026-12-01 09:00" (the creator's local time) as the API's instant; anything else is sent as typed, for the API to refuse by field. */
function instant(text: string): string {
  const date = new Date(text.trim().replace(" ", "T"));
  return text.trim() && !Number.isNaN(date.getTime()) ? date.toISOString() : text.trim();
}

function PassWindows({ project, plan }: { project: string; plan: { id: string; name: string } }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const windows = useQuery({
    queryKey: ["pass-windows", project, plan.id, page],
    queryFn: () => sb.passWindows.list(project, plan.id, { page, per_page: 25 }),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ["pass-windows", project, plan.id] });
  const [form, setForm] = useState({ name: "", starts: "", ends: "", capacity: "" });
  const body = {
    name: form.name.trim(),
    starts_at: instant(form.starts),
    ends_at: instant(form.ends),
    capacity: form.capacity.trim() ? Number(form.capacity) : null,
  };
  const create = useMutation({
    mutationFn: () => sb.passWindows.create(project, plan.id, body),
    onSuccess: () => {
      setForm({ name: "", starts: "", ends: "", capacity: "" });
      return refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: string) => sb.passWindows.delete(project, plan.id, id), onSuccess: refresh });
  const problems = fieldErrors(create.error);
  return (
    <section className="stack" aria-labelledby="pass-windows">
      <h2 id="pass-windows">Pass windows of {plan.name}</h2>
      <p>Dated windows the plan sells passes for: a workshop, an event, a season.</p>
      <ErrorNote error={windows.error ?? remove.error} />
      <DataTable
        caption="Pass windows"
        rows={windows.data?.data}
        meta={windows.data?.meta}
        onPage={setPage}
        rowKey={(w) => w.id}
        empty="No pass window yet."
        columns={[
          { header: "Name", cell: (w) => w.name },
          { header: "Starts", cell: (w) => formatDate(w.starts_at) },
          { header: "Ends", cell: (w) => formatDate(w.ends_at) },
          { header: "Capacity", cell: (w) => (w.capacity === null ? "No limit" : String(w.capacity)) },
          { header: "Seats taken", cell: (w) => (w.seats_left === null ? String(w.seats_taken) : `${w.seats_taken} (${w.seats_left} left)`) },
          {
            header: "Actions",
            cell: (w) => (
              <ConfirmButton
                label={`Delete ${w.name}`}
                title={`Delete the window ${w.name}?`}
                confirmLabel="Delete window"
                variant="danger"
                onConfirm={() => remove.mutateAsync(w.id)}
              >
                Passes for it are no longer sold.
              </ConfirmButton>
            ),
          },
        ]}
      />
      <CopyAsCode op="list_pass_windows" path={{ project, plan: plan.id }} input={{ page, per_page: 25 }} />
      <CopyAsCode op="delete_pass_window" path={{ project, plan: plan.id }} label="Copy delete as code" />
      <form
        className="stack"
        aria-labelledby="new-pass-window"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <h3 id="new-pass-window">New pass window</h3>
        <Field label="Window name" name="name" value={form.name} onChange={(name) => setForm({ ...form, name })} isRequired error={problems.name} />
        <div className="row">
          <Field
            label="Starts at"
            name="starts_at"
            value={form.starts}
            onChange={(starts) => setForm({ ...form, starts })}
            isRequired
            description="Your local time, like 2026-12-01 09:00"
            error={problems.starts_at}
          />
          <Field
            label="Ends at"
            name="ends_at"
            value={form.ends}
            onChange={(ends) => setForm({ ...form, ends })}
            isRequired
            description="After the start"
            error={problems.ends_at}
          />
        </div>
        <Field
          label="Capacity"
          name="capacity"
          value={form.capacity}
          onChange={(capacity) => setForm({ ...form, capacity })}
          inputMode="numeric"
          description="Empty for no limit"
          error={problems.capacity}
        />
        <ErrorNote error={create.error && !Object.keys(problems).length ? create.error : null} />
        <Button type="submit" isDisabled={create.isPending}>
          Add pass window
        </Button>
        <CopyAsCode op="create_pass_window" path={{ project, plan: plan.id }} input={body} />
      </form>
    </section>
  );
}

export function PlacesPage() {
  const project = useProject();
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<string | null>(null);
  const resources = useQuery({ queryKey: ["resources", project, "page", page], queryFn: () => sb.resources.list(project, { page, per_page: 25 }) });
  const refresh = () => client.invalidateQueries({ queryKey: ["resources", project] });
  const remove = useMutation({ mutationFn: (id: string) => sb.resources.delete(project, id), onSuccess: refresh });
  const toggle = useMutation({
    mutationFn: ({ id, active }: { id: string; active: boolean }) => sb.resources.update(project, id, { active }),
    onSuccess: refresh,
  });
  const edited = resources.data?.data.find((r) => r.id === editing);
  return (
    <>
      <h1>Places</h1>
      <p>The chats, servers and perks your plans grant.</p>
      <ErrorNote error={resources.error ?? remove.error ?? toggle.error} />
      <DataTable
        caption="Places"
        rows={resources.data?.data}
        meta={resources.data?.meta}
        onPage={setPage}
        rowKey={(r) => r.id}
        columns={[
          { header: "Title", cell: (r) => r.title },
          { header: "Kind", cell: (r) => `${r.connector} ${r.kind}` },
          { header: "Platform id", cell: (r) => <code>{r.platform_ref ?? "—"}</code> },
          { header: "Active", cell: (r) => (r.active ? "yes" : "no") },
          {
            header: "Actions",
            cell: (r) => (
              <div className="actions">
                <Button variant="secondary" aria-label={`Edit ${r.title}`} onPress={() => setEditing(r.id)}>
                  Edit
                </Button>
                <Button
                  variant="secondary"
                  aria-label={`${r.active ? "Deactivate" : "Activate"} ${r.title}`}
                  onPress={() => toggle.mutate({ id: r.id, active: !r.active })}
                >
                  {r.active ? "Deactivate" : "Activate"}
                </Button>
                <ConfirmButton
                  label={`Remove ${r.title}`}
                  title={`Remove ${r.title}?`}
                  confirmLabel="Remove"
                  variant="danger"
                  onConfirm={() => remove.mutateAsync(r.id)}
                >
                  Plans stop granting it.
                </ConfirmButton>
              </div>
            ),
          },
        ]}
      />
      <CopyAsCode op="list_resources" path={{ project }} input={{ page, per_page: 25 }} />
      {edited ? <EditPlace key={edited.id} project={project} place={edited} onDone={() => setEditing(null)} /> : null}
      <h2>Add a place</h2>
      <AddPlace project={project} onDone={refresh} />
    </>
  );
}

function EditPlace(props: { project: string; place: { id: string; title: string; active: boolean }; onDone: () => void }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [title, setTitle] = useState(props.place.title);
  const [active, setActive] = useState(props.place.active);
  const body = { title: title.trim(), active };
  const update = useMutation({
    mutationFn: () => sb.resources.update(props.project, props.place.id, body),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["resources", props.project] });
      props.onDone();
    },
  });
  const problems = fieldErrors(update.error);
  return (
    <form
      className="stack"
      aria-labelledby="edit-place"
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate();
      }}
    >
      <h2 id="edit-place">Edit {props.place.title}</h2>
      <Field label="Place title" name="title" value={title} onChange={setTitle} isRequired error={problems.title} />
      <Checkbox name="active" isSelected={active} onChange={setActive}>
        Active (plans grant it)
      </Checkbox>
      <ErrorNote error={update.error && !Object.keys(problems).length ? update.error : null} />
      <div className="actions">
        <Button type="submit" isDisabled={update.isPending}>
          Save place
        </Button>
        <Button variant="secondary" onPress={props.onDone}>
          Cancel
        </Button>
      </div>
      <CopyAsCode op="update_resource" path={{ project: props.project, resource: props.place.id }} input={body} />
    </form>
  );
}

function AddPlace({ project, onDone }: { project: string; onDone: () => void }) {
  const { sb } = useDashboard();
  const installed = useQuery({ queryKey: ["connectors", project], queryFn: () => sb.projectConnectors.list(project) });
  const catalog = useConnectorCatalog();
  const [form, setForm] = useState({ connector: "", kind: "", title: "", ref: "" });
  const connectors = installed.data?.data.map((i) => i.connector) ?? [];
  const connector = form.connector || connectors[0] || "";
  const kinds = catalog.data?.data.find((c) => c.key === connector)?.resource_kinds ?? [];
  const kind = form.kind && kinds.some((k) => k.kind === form.kind) ? form.kind : (kinds[0]?.kind ?? "");
  const body = { connector, kind, title: form.title.trim(), ...(form.ref.trim() ? { platform_ref: form.ref.trim() } : {}) };
  const create = useMutation({
    mutationFn: () => sb.resources.create(project, body),
    onSuccess: () => {
      setForm({ ...form, title: "", ref: "" });
      onDone();
    },
  });
  const problems = fieldErrors(create.error);
  if (installed.data && !connectors.length) return <p>Connect a platform first (Setup), then add its chats and perks here.</p>;
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <div className="row">
        <SelectField
          label="Connector"
          name="connector"
          value={connector}
          onChange={(value) => setForm({ ...form, connector: value, kind: "" })}
          options={connectors.map((c) => ({ value: c, label: catalog.data?.data.find((card) => card.key === c)?.name ?? c }))}
          error={problems.connector}
        />
        <SelectField
          label="Kind"
          name="kind"
          value={kind}
          onChange={(value) => setForm({ ...form, kind: value })}
          options={kinds.map((k) => ({ value: k.kind, label: k.label }))}
          error={problems.kind}
        />
      </div>
      <Field label="Title" name="title" value={form.title} onChange={(title) => setForm({ ...form, title })} isRequired error={problems.title} />
      <Field
        label="Platform id"
        name="platform_ref"
        value={form.ref}
        onChange={(ref) => setForm({ ...form, ref })}
        error={problems.platform_ref}
        description="The chat's or server's id on the platform, like -1001234567890; empty for a perk you hand over yourself."
      />
      <ErrorNote error={create.error && !Object.keys(problems).length ? create.error : null} />
      <Button type="submit" isDisabled={create.isPending}>
        Add place
      </Button>
      <CopyAsCode op="create_resource" path={{ project }} input={body} />
    </form>
  );
}

export function CouponsPage() {
  const project = useProject();
  const { sb } = useDashboard();
  const client = useQueryClient();
  const coupons = useQuery({ queryKey: ["coupons", project], queryFn: () => sb.coupons.list(project, { per_page: 100 }) });
  const [form, setForm] = useState({ code: "", kind: "percent", percent: "10", amount: "", currency: "USD" });
  const body =
    form.kind === "percent"
      ? { code: form.code.trim(), percent_off: Number(form.percent) }
      : { code: form.code.trim(), amount_off: { amount: parseMajor(form.amount, form.currency) ?? 0, currency: form.currency } };
  const create = useMutation({
    mutationFn: () => sb.coupons.create(project, body),
    onSuccess: () => client.invalidateQueries({ queryKey: ["coupons", project] }),
  });
  const problems = fieldErrors(create.error);
  return (
    <>
      <h1>Coupons</h1>
      <ErrorNote error={coupons.error} />
      <DataTable
        caption="Coupons"
        rows={coupons.data?.data}
        meta={coupons.data?.meta}
        rowKey={(c) => c.id}
        columns={[
          { header: "Code", cell: (c) => <code>{c.code}</code> },
          { header: "Discount", cell: (c) => (c.percent_off ? `${c.percent_off}%` : formatMoney(c.amount_off)) },
          { header: "Redeemed", cell: (c) => String((c as { times_redeemed?: number }).times_redeemed ?? "—") },
          { header: "Active", cell: (c) => (c.active ? "yes" : "no") },
        ]}
      />
      <h2>New coupon</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field label="Code" name="code" value={form.code} onChange={(code) => setForm({ ...form, code })} isRequired error={problems.code} />
        <SelectField
          label="Discount kind"
          name="kind"
          value={form.kind}
          onChange={(kind) => setForm({ ...form, kind })}
          options={[
            { value: "percent", label: "Percent off" },
            { value: "amount", label: "Amount off" },
          ]}
        />
        {form.kind === "percent" ? (
          <Field
            label="Percent off"
            name="percent_off"
            value={form.percent}
            onChange={(percent) => setForm({ ...form, percent })}
            inputMode="numeric"
            error={problems.percent_off}
          />
        ) : (
          <div className="row">
            <Field
              label="Amount off"
              name="amount_off"
              value={form.amount}
              onChange={(amount) => setForm({ ...form, amount })}
              inputMode="decimal"
              error={problems["amount_off.amount"]}
            />
            <SelectField
              label="Currency"
              name="currency"
              value={form.currency}
              onChange={(currency) => setForm({ ...form, currency })}
              options={CURRENCIES}
            />
          </div>
        )}
        <ErrorNote error={create.error && !Object.keys(problems).length ? create.error : null} />
        <Button type="submit">Create coupon</Button>
        <CopyAsCode op="create_coupon" path={{ project }} input={body} />
      </form>
    </>
  );
}

export function AccessPage() {
  const project = useProject();
  const { sb } = useDashboard();
  const plans = useQuery({ queryKey: ["plans", project], queryFn: () => sb.plans.list(project, { per_page: 100 }) });
  const [plan, setPlan] = useState("");
  const chosen = plan || plans.data?.data[0]?.id || "";
  const codes = useQuery({
    enabled: Boolean(chosen),
    queryKey: ["codes", project, chosen],
    queryFn: () => sb.accessCodes.list(project, chosen, { per_page: 50 }),
  });
  const [count, setCount] = useState("10");
  const client = useQueryClient();
  const generate = useMutation({
    mutationFn: () => sb.accessCodes.bulkGenerate(project, chosen, { quantity: Number(count) }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["codes", project, chosen] }),
  });
  return (
    <>
      <h1>Access codes</h1>
      <p>Codes grant a plan without payment: giveaways, partners, comps.</p>
      {plans.data?.data.length ? (
        <SelectField
          label="Plan"
          name="plan"
          value={chosen}
          onChange={setPlan}
          options={plans.data.data.map((p) => ({ value: p.id, label: p.name }))}
        />
      ) : (
        <p>Create a plan first.</p>
      )}
      <ErrorNote error={codes.error ?? generate.error} />
      {chosen ? (
        <>
          <DataTable
            caption="Codes"
            rows={codes.data?.data}
            meta={codes.data?.meta}
            rowKey={(c) => c.id}
            columns={[
              { header: "Code", cell: (c) => <code>{(c as { code?: string }).code ?? c.id}</code> },
              { header: "Status", cell: (c) => String((c as { status?: string }).status ?? "—") },
              { header: "Created", cell: (c) => formatDate((c as { created_at?: string }).created_at) },
            ]}
          />
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              generate.mutate();
            }}
          >
            <Field label="How many codes" name="count" value={count} onChange={setCount} inputMode="numeric" />
            <Button type="submit">Generate codes</Button>
          </form>
          <CopyAsCode op="bulk_generate_access_codes" path={{ project, plan: chosen }} input={{ quantity: Number(count) }} />
          <DeepLink project={project} plan={chosen} />
        </>
      ) : null}
    </>
  );
}

/** The bot's start link for a plan, and for one access code (the member lands on the plan, the code applied). */
function DeepLink({ project, plan }: { project: string; plan: string }) {
  const { sb } = useDashboard();
  const [code, setCode] = useState("");
  const [asked, setAsked] = useState<{ plan_id: string; access_code?: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const link = useQuery({
    enabled: asked !== null,
    queryKey: ["deep-link", project, asked],
    queryFn: () => sb.distribution.deepLink(project, asked!),
    retry: false,
  });
  const input = { plan_id: plan, ...(code.trim() ? { access_code: code.trim() } : {}) };
  const url = asked && asked.plan_id === plan ? link.data?.data.deep_link : undefined;
  return (
    <section className="stack" aria-labelledby="deep-link">
      <h2 id="deep-link">Bot link</h2>
      <p>A link that opens your bot on this plan; with an access code, the code is applied for the member.</p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setCopied(false);
          setAsked(input);
        }}
      >
        <Field
          label="Access code (optional)"
          name="access_code"
          value={code}
          onChange={setCode}
          error={fieldErrors(link.error).access_code ?? fieldErrors(link.error).plan_id}
        />
        <Button type="submit">Make the link</Button>
      </form>
      <ErrorNote error={link.error && !Object.keys(fieldErrors(link.error)).length ? link.error : null} />
      {url ? (
        <div className="row">
          <a href={url} target="_blank" rel="noreferrer">
            {url}
          </a>
          <Button
            variant="secondary"
            aria-label="Copy the bot link"
            onPress={async () => {
              await navigator.clipboard?.writeText(url).catch(() => undefined);
              setCopied(true);
            }}
          >
            {copied ? "Copied" : "Copy"}
          </Button>
        </div>
      ) : null}
      <CopyAsCode op="get_deep_link" path={{ project }} input={input} />
    </section>
  );
}

export function SharePage() {
  const project = useProject();
  return (
    <>
      <h1>Share</h1>
      <ShareLinks project={project} />
    </>
  );
}
