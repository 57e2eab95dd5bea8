// The guided setup a first-time creator finishes in minutes: name the project → connect Telegram →
// pick the chat → create a plan → take payments → publish → share. Each step reads its state from
// the API, so the guide resumes where the creator left it, and a finished step says so.
import { useState, type ReactNode } from "react";
import { useNavigate, useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, ErrorNote, Field, fieldErrors, Notice, SelectField } from "../ui/kit";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatPrice, parseMajor } from "../format";
import { ShareLinks } from "./share-links";
import { listChats } from "./chats";
import { InstallSteps } from "../ui/install-steps";
import { PlanTermsFields } from "../ui/plan-fields";
import { useConnectorCatalog } from "./connectors";

function Step(props: { n: number; title: string; done: boolean; current: boolean; summary?: ReactNode; children?: ReactNode }) {
  return (
    <section className={`step${props.done ? " done" : ""}${props.current ? " current" : ""}`} aria-labelledby={`step-${props.n}`}>
      <h2 id={`step-${props.n}`}>
        <span className="step-n" aria-hidden="true">
          {props.done ? "✓" : props.n}
        </span>{" "}
        {props.title}
        {props.done ? <span className="visually-hidden"> (done)</span> : null}
      </h2>
      {props.done && props.summary ? <div className="step-summary">{props.summary}</div> : null}
      {props.current ? <div className="step-body">{props.children}</div> : null}
    </section>
  );
}

function CreateProject() {
  const { sb } = useDashboard();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => sb.projects.create({ name: name.trim() }),
    onSuccess: async (answer) => {
      await client.invalidateQueries({ queryKey: ["projects"] });
      await navigate({ to: "/projects/$project/setup", params: { project: answer.data.id } });
    },
  });
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <p>A project is one community: its bot, its gated chats, its plans and its members.</p>
      <Field label="Project name" name="name" value={name} onChange={setName} isRequired error={fieldErrors(create.error).name} />
      <ErrorNote error={create.error && !fieldErrors(create.error).name ? create.error : null} />
      <Button type="submit" isDisabled={create.isPending}>
        Create project
      </Button>
      <CopyAsCode op="create_project" input={{ name: name || "My community" }} />
    </form>
  );
}

export function SetupPage() {
  const { project } = useParams({ strict: false }) as { project?: string };
  return (
    <>
      <h1>{project ? "Set up your project" : "Create project"}</h1>
      {project ? (
        <ProjectSetup project={project} />
      ) : (
        <>
          <Step n={1} title="Create the project" done={false} current>
            <CreateProject />
          </Step>
          {["Connect Telegram", "Pick the chat", "Create a plan", "Take payments", "Publish", "Share"].map((t, i) => (
            <Step key={t} n={i + 2} title={t} done={false} current={false} />
          ))}
        </>
      )}
    </>
  );
}

function ProjectSetup({ project }: { project: string }) {
  const { sb, config } = useDashboard();
  const client = useQueryClient();
  const projectQ = useQuery({ queryKey: ["project", project], queryFn: () => sb.projects.retrieve(project) });
  const connectors = useQuery({ queryKey: ["connectors", project], queryFn: () => sb.projectConnectors.list(project) });
  const resources = useQuery({ queryKey: ["resources", project], queryFn: () => sb.resources.list(project, { per_page: 100 }) });
  const plans = useQuery({ queryKey: ["plans", project], queryFn: () => sb.plans.list(project, { per_page: 100 }) });
  const methods = useQuery({
    queryKey: ["payment-methods", project],
    queryFn: () => sb.paymentMethods.list(project, { per_page: 100 }),
    refetchInterval: 5000,
  });
  const refresh = () => client.invalidateQueries();

  if (!projectQ.data || !connectors.data || !resources.data || !plans.data || !methods.data) return <p>Loading…</p>;
  const telegram = connectors.data.data.find((c) => c.connector === "telegram");
  const resource = resources.data.data[0];
  const plan = plans.data.data[0];
  const enabled = methods.data.data.filter((m) => m.enabled);
  const published = plans.data.data.find((p) => p.status === "published");
  const done = [true, Boolean(telegram), Boolean(resource), Boolean(plan), enabled.length > 0, Boolean(published)];
  const current = done.indexOf(false) === -1 ? 6 : done.indexOf(false);

  return (
    <>
      <p className="lead">
        <strong>{projectQ.data.data.name}</strong>: {current < 6 ? `step ${current + 1} of 7.` : "ready: members can join and pay."}
      </p>
      <Step n={1} title="Create the project" done current={false} summary={projectQ.data.data.name} />
      <Step
        n={2}
        title="Connect Telegram"
        done={done[1]!}
        current={current === 1}
        summary={telegram ? <>Bot @{telegram.platform_account_name} connected.</> : null}
      >
        <ConnectTelegram project={project} onDone={refresh} />
      </Step>
      <Step n={3} title="Pick the chat" done={done[2]!} current={current === 2} summary={resource ? <>Gating “{resource.title}”.</> : null}>
        <PickChat project={project} botName={telegram?.platform_account_name ?? null} onDone={refresh} />
      </Step>
      <Step
        n={4}
        title="Create a plan"
        done={done[3]!}
        current={current === 3}
        summary={
          plan ? (
            <>
              {plan.name}: {formatPrice(plan.price, plan.billing_cycle, plan.billing_cycle_count)}
            </>
          ) : null
        }
      >
        {resource ? <CreatePlan project={project} resourceIds={resources.data.data.map((r) => r.id)} onDone={refresh} /> : null}
      </Step>
      <Step n={5} title="Take payments" done={done[4]!} current={current === 4} summary={enabled.map((m) => m.name).join(", ")}>
        <TakePayments project={project} onCheck={refresh} authUrl={config.authUrl} methods={methods.data.data} />
      </Step>
      <Step n={6} title="Publish" done={done[5]!} current={current === 5} summary={published ? <>“{published.name}” is on sale.</> : null}>
        {plan ? <Publish project={project} plan={plan} onDone={refresh} /> : null}
      </Step>
      <Step n={7} title="Share" done={false} current={current === 6}>
        <ShareLinks project={project} plan={published?.id} />
      </Step>
    </>
  );
}

function ConnectTelegram({ project, onDone }: { project: string; onDone: () => void }) {
  const { sb } = useDashboard();
  const card = useConnectorCatalog().data?.data.find((c) => c.key === "telegram");
  const [token, setToken] = useState("");
  const install = useMutation({
    mutationFn: () => sb.projectConnectors.install(project, "telegram", { fields: { bot_token: token.trim() } }),
    onSuccess: onDone,
  });
  const problems = fieldErrors(install.error);
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        install.mutate();
      }}
    >
      <InstallSteps fields={card?.install?.fields.filter((f) => f.name === "bot_token")} button="Connect Telegram" />
      <Field
        label="Bot token"
        name="bot_token"
        type="password"
        value={token}
        onChange={setToken}
        isRequired
        error={problems["fields.bot_token"] ?? problems.bot_token}
        description="Looks like 123456789:AA…"
      />
      <ErrorNote error={install.error && !problems["fields.bot_token"] ? install.error : null} />
      <Button type="submit" isDisabled={install.isPending}>
        {install.isPending ? "Checking with Telegram…" : "Connect Telegram"}
      </Button>
      <CopyAsCode op="install_connector" path={{ project, connector: "telegram" }} input={{ fields: { bot_token: "<bot token>" } }} />
    </form>
  );
}

function PickChat({ project, botName, onDone }: { project: string; botName: string | null; onDone: () => void }) {
  const { sb } = useDashboard();
  const chats = useQuery({ queryKey: ["chats", project], queryFn: () => listChats(sb, project, "telegram"), refetchInterval: 4000 });
  const [manual, setManual] = useState({ id: "", title: "", kind: "channel" });
  const create = useMutation({
    mutationFn: (chat: { id: string; title: string; kind: string }) =>
      sb.resources.create(project, { connector: "telegram", kind: chat.kind, title: chat.title, platform_ref: chat.id }),
    onSuccess: onDone,
  });
  const problems = fieldErrors(create.error);
  const available = (chats.data ?? []).filter((c) => !c.resource_id);
  return (
    <div className="stack">
      <p>
        Add {botName ? <strong>@{botName}</strong> : "your bot"} to your channel or group as an administrator (with the rights to invite and to ban
        users). The chats it administers appear here by themselves.
      </p>
      {chats.error ? <ErrorNote error={chats.error} /> : null}
      {available.length ? (
        <ul className="choices" aria-label="Chats the bot administers">
          {available.map((chat) => (
            <li key={chat.chat_id}>
              <span>
                <strong>{chat.title}</strong>{" "}
                <span className="hint">
                  {chat.type} · {chat.chat_id}
                </span>
              </span>
              <Button
                isDisabled={create.isPending}
                aria-label={`Gate ${chat.title}`}
                onPress={() =>
                  create.mutate({ id: chat.chat_id, title: chat.title || chat.chat_id, kind: chat.type === "channel" ? "channel" : "group" })
                }
              >
                Gate this chat
              </Button>
            </li>
          ))}
        </ul>
      ) : (
        <Notice kind="info">No chat yet: add the bot to a chat as administrator, and it shows here within seconds.</Notice>
      )}
      <details>
        <summary>Or type the chat's id</summary>
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ id: manual.id.trim(), title: manual.title.trim() || manual.id.trim(), kind: manual.kind });
          }}
        >
          <Field
            label="Chat id"
            name="platform_ref"
            value={manual.id}
            onChange={(id) => setManual({ ...manual, id })}
            isRequired
            error={problems.platform_ref}
            description="For example -1001234567890"
          />
          <Field label="Chat title" name="title" value={manual.title} onChange={(title) => setManual({ ...manual, title })} error={problems.title} />
          <SelectField
            label="Kind"
            name="kind"
            value={manual.kind}
            onChange={(kind) => setManual({ ...manual, kind })}
            options={[
              { value: "channel", label: "Channel" },
              { value: "group", label: "Group" },
            ]}
          />
          <Button type="submit" variant="secondary" isDisabled={create.isPending}>
            Gate this chat
          </Button>
        </form>
      </details>
      <ErrorNote error={create.error && !Object.keys(problems).length ? create.error : null} />
      <CopyAsCode
        op="create_resource"
        path={{ project }}
        input={{ connector: "telegram", kind: "channel", title: "My channel", platform_ref: "-1001234567890" }}
      />
    </div>
  );
}

const PLAN_FORM_FIELDS = ["name", "price.amount", "price.currency", "billing_cycle", "trial_days"];

export function PlanForm({
  project,
  resourceIds,
  onDone,
  submitLabel = "Create plan",
}: {
  project: string;
  resourceIds: string[];
  onDone: () => void;
  submitLabel?: string;
}) {
  const { sb } = useDashboard();
  const [form, setForm] = useState({ name: "", price: "", currency: "USD", cycle: "month", trial: "0" });
  const amount = parseMajor(form.price, form.currency);
  const body = {
    name: form.name.trim(),
    price: { amount: amount ?? 0, currency: form.currency },
    billing_cycle: form.cycle as "month",
    trial_days: Number(form.trial) || 0,
    resources: resourceIds,
  };
  const create = useMutation({ mutationFn: () => sb.plans.create(project, body), onSuccess: onDone });
  const problems = fieldErrors(create.error);
  const [priceError, setPriceError] = useState<string | undefined>();
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        if (amount === null) {
          setPriceError(`Write the price in ${form.currency}, like 9.00.`);
          return;
        }
        setPriceError(undefined);
        create.mutate();
      }}
    >
      <Field label="Name" name="name" value={form.name} onChange={(name) => setForm({ ...form, name })} isRequired error={problems.name} />
      <PlanTermsFields terms={form} onChange={(patch) => setForm({ ...form, ...patch })} problems={problems} priceError={priceError} />
      {/* A refusal naming a field the form does not show (resources) is shown whole. */}
      <ErrorNote
        error={
          create.error && !Object.keys(problems).every((k) => PLAN_FORM_FIELDS.includes(k))
            ? create.error
            : create.error && !Object.keys(problems).length
              ? create.error
              : null
        }
      />
      <Button type="submit" isDisabled={create.isPending}>
        {submitLabel}
      </Button>
      <CopyAsCode op="create_plan" path={{ project }} input={body} />
    </form>
  );
}

function CreatePlan(props: { project: string; resourceIds: string[]; onDone: () => void }) {
  return (
    <>
      <p>What members pay, how often, and whether they may try it first. The plan grants the chat you picked.</p>
      <PlanForm {...props} />
    </>
  );
}

function TakePayments({
  project,
  onCheck,
  authUrl,
  methods,
}: {
  project: string;
  onCheck: () => void;
  authUrl: string;
  methods: { id: string; name: string; enabled: boolean; provider: string }[];
}) {
  return (
    <div className="stack">
      <p>
        Members pay through your own Stripe account (cards, wallets) or with Telegram Stars. Connecting a provider happens on your account's payments
        page, where Stripe's onboarding runs; come back here when it is done.
      </p>
      {methods.length ? (
        <ul>
          {methods.map((m) => (
            <li key={m.id}>
              {m.name}: {m.enabled ? "on" : "off"}
            </li>
          ))}
        </ul>
      ) : null}
      <p className="actions">
        <a className="btn primary" href={`${authUrl}/payments?project=${encodeURIComponent(project)}#project-${project}`}>
          Connect Stripe
        </a>
        <a className="btn secondary" href={`${authUrl}/payments?project=${encodeURIComponent(project)}#project-${project}`}>
          Enable Telegram Stars
        </a>
        <Button variant="secondary" onPress={onCheck}>
          Check again
        </Button>
      </p>
    </div>
  );
}

function Publish({ project, plan, onDone }: { project: string; plan: { id: string; name: string; status: string }; onDone: () => void }) {
  const { sb } = useDashboard();
  const publish = useMutation({ mutationFn: () => sb.plans.publish(project, plan.id), onSuccess: onDone });
  return (
    <div className="stack">
      <p>“{plan.name}” is a draft. Publishing puts it on your portal and in the bot, where members can buy it.</p>
      <ErrorNote error={publish.error} />
      <Button onPress={() => publish.mutate()} isDisabled={publish.isPending}>
        Publish
      </Button>
      <CopyAsCode op="publish_plan" path={{ project, plan: plan.id }} />
    </div>
  );
}
