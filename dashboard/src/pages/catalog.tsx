// What a project sells and gates: plans, places (resources), coupons, access codes, connectors,
// and where members join.
import { useState } from "react";
import { useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, ConfirmButton, ErrorNote, Field, fieldErrors, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatDate, formatMoney, formatPrice, parseMajor } from "../format";
import { PlanForm, CURRENCIES } from "./setup";
import { ShareLinks } from "./share-links";

function useProject() {
  return (useParams({ strict: false }) as { project: string }).project;
}

export function PlansPage() {
  const project = useProject();
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const plans = useQuery({ queryKey: ["plans", project, page], queryFn: () => sb.plans.list(project, { page, per_page: 25 }) });
  const resources = useQuery({ queryKey: ["resources", project], queryFn: () => sb.resources.list(project, { per_page: 100 }) });
  const refresh = () => client.invalidateQueries({ queryKey: ["plans", project] });
  const act = useMutation({
    mutationFn: ({ plan, action }: { plan: string; action: "publish" | "archive" }) =>
      action === "publish" ? sb.plans.publish(project, plan) : sb.plans.archive(project, plan),
    onSuccess: refresh,
  });
  return (
    <>
      <h1>Plans</h1>
      <ErrorNote error={plans.error ?? act.error} />
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
            cell: (p) =>
              p.status === "published" ? (
                <Button variant="secondary" aria-label={`Archive ${p.name}`} onPress={() => act.mutate({ plan: p.id, action: "archive" })}>
                  Archive
                </Button>
              ) : (
                <Button aria-label={`Publish ${p.name}`} onPress={() => act.mutate({ plan: p.id, action: "publish" })}>
                  Publish
                </Button>
              ),
          },
        ]}
      />
      <h2>New plan</h2>
      {resources.data ? <PlanForm project={project} resourceIds={resources.data.data.map((r) => r.id)} onDone={refresh} /> : null}
    </>
  );
}

export function PlacesPage() {
  const project = useProject();
  const { sb } = useDashboard();
  const client = useQueryClient();
  const resources = useQuery({ queryKey: ["resources", project], queryFn: () => sb.resources.list(project, { per_page: 100 }) });
  const remove = useMutation({
    mutationFn: (id: string) => sb.resources.delete(project, id),
    onSuccess: () => client.invalidateQueries({ queryKey: ["resources", project] }),
  });
  return (
    <>
      <h1>Places</h1>
      <p>The chats, servers and perks your plans grant. Gate a new chat from the setup's “Pick the chat” step or below.</p>
      <ErrorNote error={resources.error ?? remove.error} />
      <DataTable
        caption="Places"
        rows={resources.data?.data}
        meta={resources.data?.meta}
        rowKey={(r) => r.id}
        columns={[
          { header: "Title", cell: (r) => r.title },
          { header: "Kind", cell: (r) => `${r.connector} ${r.kind}` },
          { header: "Platform id", cell: (r) => <code>{r.platform_ref ?? "—"}</code> },
          {
            header: "Actions",
            cell: (r) => (
              <ConfirmButton
                label="Remove"
                title={`Remove ${r.title}?`}
                confirmLabel="Remove"
                variant="danger"
                onConfirm={() => remove.mutateAsync(r.id)}
              >
                Plans stop granting it.
              </ConfirmButton>
            ),
          },
        ]}
      />
      <CopyAsCode op="list_resources" path={{ project }} />
    </>
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
        </>
      ) : null}
    </>
  );
}

export function ConnectorsPage() {
  const project = useProject();
  const { sb } = useDashboard();
  const installed = useQuery({ queryKey: ["connectors", project], queryFn: () => sb.projectConnectors.list(project) });
  return (
    <>
      <h1>Connectors</h1>
      <ErrorNote error={installed.error} />
      <DataTable
        caption="Installed connectors"
        rows={installed.data?.data}
        rowKey={(c) => c.id}
        empty="No connector yet: connect Telegram from the setup."
        columns={[
          { header: "Connector", cell: (c) => c.connector },
          { header: "Account", cell: (c) => c.platform_account_name ?? "—" },
          { header: "Bot", cell: (c) => (c.bot_url ? <a href={c.bot_url}>{c.bot_url}</a> : "—") },
          { header: "Status", cell: (c) => c.status },
        ]}
      />
      <CopyAsCode op="list_project_connectors" path={{ project }} />
    </>
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
