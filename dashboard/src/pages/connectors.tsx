// A project's connector installations: each one's settings, edited through a form rendered from
// the settings fields (text, select, toggle, link) and saved with update_project_connector (only
// the changed keys; an emptied text is null, which clears it), and uninstalling it.
import { useState } from "react";
import { useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { components } from "@subbridge/sdk";
import { useDashboard } from "../context";
import { Button, Checkbox, ConfirmButton, ErrorNote, Field, fieldErrors, Notice, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";
import { AddToDiscord, DiscordPlaces } from "./discord-install";
import { RemovalHolds } from "./removal-holds";

export interface SettingsField {
  name: string;
  type: "text" | "select" | "toggle" | "link" | string;
  label?: string;
  help?: string;
  options?: Record<string, string>;
}

type Value = string | boolean | null;

/**
 * The settings fields of a connector: the catalog card's install.settings_fields (the manifest's,
 * in English), else, for a card without a package, one field per setting the installation holds
 * (a boolean is a toggle, anything else a text).
 */
export function settingsFieldsOf(card: components["schemas"]["ConnectorCard"] | undefined, settings: Record<string, unknown>): SettingsField[] {
  const declared = card?.install?.settings_fields;
  if (declared?.length)
    return declared.map((f) => ({
      name: f.name,
      type: f.type,
      label: f.label,
      ...(f.help ? { help: f.help } : {}),
      ...(f.options.length ? { options: Object.fromEntries(f.options.map((o) => [o.value, o.label])) } : {}),
    }));
  return Object.entries(settings).map(([name, value]) => ({
    name,
    type: typeof value === "boolean" ? "toggle" : "text",
    label: name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()),
  }));
}

function SettingInput(props: { field: SettingsField; value: Value; onChange: (value: Value) => void; error?: string | undefined }) {
  const { field, value } = props;
  const label = field.label ?? field.name;
  if (field.type === "toggle")
    return (
      <div className="field">
        <Checkbox name={field.name} isSelected={value === true} onChange={props.onChange}>
          {label}
        </Checkbox>
        {field.help ? <span className="hint">{field.help}</span> : null}
        {props.error ? <span className="field-error">{props.error}</span> : null}
      </div>
    );
  if (field.type === "select" && field.options)
    return (
      <SelectField
        label={label}
        name={field.name}
        value={typeof value === "string" ? value : ""}
        onChange={props.onChange}
        options={[{ value: "", label: "Not set" }, ...Object.entries(field.options).map(([v, l]) => ({ value: v, label: l }))]}
        description={field.help}
        error={props.error}
      />
    );
  return (
    <Field
      label={label}
      name={field.name}
      type={field.type === "link" ? "url" : "text"}
      value={typeof value === "string" ? value : value === null ? "" : String(value)}
      onChange={props.onChange}
      description={field.help}
      error={props.error}
    />
  );
}

function InstallationSettings(props: {
  project: string;
  installation: { connector: string; settings: Record<string, unknown>; platform_account_name: string | null };
  card: components["schemas"]["ConnectorCard"] | undefined;
  cardName: string;
}) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const { project, installation } = props;
  const fields = settingsFieldsOf(props.card, installation.settings);
  const [values, setValues] = useState<Record<string, Value>>({});
  const settings = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === "" ? null : v]));
  const refresh = () => client.invalidateQueries({ queryKey: ["connectors", project] });
  const update = useMutation({
    mutationFn: () => sb.projectConnectors.update(project, installation.connector, { settings }),
    onSuccess: async () => {
      setValues({});
      await refresh();
    },
  });
  const uninstall = useMutation({ mutationFn: () => sb.projectConnectors.uninstall(project, installation.connector), onSuccess: refresh });
  const problems = fieldErrors(update.error);
  const headingId = `connector-${installation.connector}`;
  return (
    <section className="stack" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {props.cardName}
        {installation.platform_account_name ? ` (${installation.platform_account_name})` : ""}
      </h2>
      {fields.length ? (
        <form
          className="stack"
          aria-label={`${props.cardName} settings`}
          onSubmit={(e) => {
            e.preventDefault();
            update.mutate();
          }}
        >
          {fields.map((field) => (
            <SettingInput
              key={field.name}
              field={field}
              value={field.name in values ? values[field.name]! : ((installation.settings[field.name] as Value | undefined) ?? null)}
              onChange={(value) => setValues({ ...values, [field.name]: value })}
              error={problems[`settings.${field.name}`]}
            />
          ))}
          <ErrorNote error={update.error && !Object.keys(problems).length ? update.error : null} />
          {update.isSuccess && !Object.keys(values).length ? <Notice kind="success">Settings saved.</Notice> : null}
          <Button type="submit" isDisabled={update.isPending || !Object.keys(values).length}>
            Save settings
          </Button>
          <CopyAsCode
            op="update_project_connector"
            path={{ project, connector: installation.connector }}
            input={{ settings: Object.keys(settings).length ? settings : installation.settings }}
          />
        </form>
      ) : (
        <p>This connector has no settings to change.</p>
      )}
      {installation.connector === "discord" ? (
        <>
          <DiscordPlaces project={project} />
          <RemovalHolds project={project} />
        </>
      ) : null}
      <ErrorNote error={uninstall.error} />
      <ConfirmButton
        label={`Uninstall ${props.cardName}`}
        title={`Uninstall ${props.cardName}?`}
        confirmLabel="Uninstall"
        variant="danger"
        onConfirm={() => uninstall.mutateAsync()}
      >
        The bot stops answering for this project. Your places stay, and members keep what they were granted.
      </ConfirmButton>
      <CopyAsCode op="uninstall_connector" path={{ project, connector: installation.connector }} label="Copy uninstall as code" />
    </section>
  );
}

export function useConnectorCatalog() {
  const { sb } = useDashboard();
  return useQuery({ queryKey: ["connector-catalog"], queryFn: () => sb.connectors.list({ per_page: 100 }), staleTime: 300_000 });
}

export function ConnectorsPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb } = useDashboard();
  const installed = useQuery({ queryKey: ["connectors", project], queryFn: () => sb.projectConnectors.list(project) });
  const catalog = useConnectorCatalog();
  const cardOf = (key: string) => catalog.data?.data.find((c) => c.key === key);
  return (
    <>
      <h1>Connectors</h1>
      <ErrorNote error={installed.error ?? catalog.error} />
      <DataTable
        caption="Installed connectors"
        rows={installed.data?.data}
        meta={installed.data?.meta}
        rowKey={(c) => c.id}
        empty="No connector yet: connect Telegram from the setup."
        columns={[
          { header: "Connector", cell: (c) => cardOf(c.connector)?.name ?? c.connector },
          { header: "Account", cell: (c) => c.platform_account_name ?? "—" },
          { header: "Bot", cell: (c) => (c.bot_url ? <a href={c.bot_url}>{c.bot_url}</a> : "—") },
          { header: "Status", cell: (c) => c.status },
        ]}
      />
      <CopyAsCode op="list_project_connectors" path={{ project }} />
      {installed.data && !installed.data.data.some((c) => c.connector === "discord") && cardOf("discord")?.installable ? (
        <section className="stack" aria-labelledby="connect-discord">
          <h2 id="connect-discord">Connect Discord</h2>
          <AddToDiscord project={project} card={cardOf("discord")} />
        </section>
      ) : null}
      {installed.data?.data.map((installation) => (
        <InstallationSettings
          key={installation.id}
          project={project}
          installation={installation as typeof installation & { settings: Record<string, unknown> }}
          card={cardOf(installation.connector)}
          cardName={cardOf(installation.connector)?.name ?? installation.connector}
        />
      ))}
    </>
  );
}
