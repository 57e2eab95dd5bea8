// What SubBridge keeps ready for the day a project loses its community on a platform: one recovery
// setting per installed connector (health probes, a standby installation, identity relinking where a
// connector carries it out), listed by the server's pages, created, changed and deleted. A feature
// the connector does not declare is refused by the API with the field that turns it on, shown by
// that field; relinking is offered only for a connector whose card claims it.
import { useState } from "react";
import { useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, Checkbox, ConfirmButton, ErrorNote, Field, fieldErrors, SelectField } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatDate } from "../format";
import { useConnectorCatalog } from "./connectors";

interface Setting {
  id: string;
  connector: string;
  probes: { enabled: boolean; interval_minutes: number };
  standby_installation_id: string | null;
  identity_relink: { enabled: boolean };
}

function RecoveryForm({
  project,
  editing,
  connectors,
  onDone,
}: {
  project: string;
  editing: Setting | null;
  connectors: string[];
  onDone: () => void;
}) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [connector, setConnector] = useState(editing?.connector ?? "");
  const [probes, setProbes] = useState(editing?.probes.enabled ?? false);
  const [interval, setEvery] = useState(String(editing?.probes.interval_minutes ?? 15));
  const [relink, setRelink] = useState(editing?.identity_relink.enabled ?? false);
  const [standby, setStandby] = useState(editing?.standby_installation_id ?? "");
  const chosen = connector || connectors[0] || "";
  const relinks =
    useConnectorCatalog()
      .data?.data.find((c) => c.key === chosen)
      ?.capabilities.includes("recovery_identity_relink") ?? false;
  const common = {
    probes: { enabled: probes, interval_minutes: /^\d+$/.test(interval.trim()) ? Number(interval) : (interval as unknown as number) },
    identity_relink: { enabled: relink },
    standby_installation_id: standby.trim() || null,
  };
  const body = editing ? common : { connector: chosen, ...common };
  const save = useMutation({
    mutationFn: (): Promise<unknown> =>
      editing ? sb.recoverySettings.update(project, editing.id, common) : sb.recoverySettings.create(project, { connector: chosen, ...common }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["recovery", project] });
      onDone();
    },
  });
  const problems = fieldErrors(save.error);
  return (
    <form
      className="stack"
      aria-labelledby="recovery-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2 id="recovery-form">{editing ? `Change the ${editing.connector} setting` : "New recovery setting"}</h2>
      {editing ? null : (
        <SelectField
          label="Connector"
          name="connector"
          value={chosen}
          onChange={setConnector}
          options={connectors.map((c) => ({ value: c, label: c }))}
          error={problems.connector}
        />
      )}
      <Checkbox name="probes.enabled" isSelected={probes} onChange={setProbes}>
        Check the bot's health regularly
      </Checkbox>
      {problems["probes.enabled"] ? <span className="field-error">{problems["probes.enabled"]}</span> : null}
      <Field
        label="Check every (minutes)"
        name="probes.interval_minutes"
        value={interval}
        onChange={setEvery}
        inputMode="numeric"
        description="5 to 1440"
        error={problems["probes.interval_minutes"]}
      />
      {relinks || relink ? (
        <Checkbox name="identity_relink.enabled" isSelected={relink} onChange={setRelink}>
          Let members link their new account after a loss
        </Checkbox>
      ) : null}
      {problems["identity_relink.enabled"] ? <span className="field-error">{problems["identity_relink.enabled"]}</span> : null}
      <Field
        label="Standby installation id"
        name="standby_installation_id"
        value={standby}
        onChange={setStandby}
        description="Optional: the same connector installed on a reserve project of your team"
        error={problems.standby_installation_id}
      />
      <ErrorNote error={save.error && !Object.keys(problems).length ? save.error : null} />
      <div className="actions">
        <Button type="submit" isDisabled={save.isPending || !chosen}>
          {editing ? "Save recovery setting" : "Create recovery setting"}
        </Button>
        {editing ? (
          <Button variant="secondary" onPress={onDone}>
            Cancel
          </Button>
        ) : null}
      </div>
      <CopyAsCode
        op={editing ? "update_recovery_setting" : "create_recovery_setting"}
        path={editing ? { project, recovery_setting: editing.id } : { project }}
        input={body}
      />
    </form>
  );
}

export function RecoveryPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<string | null>(null);
  const settings = useQuery({ queryKey: ["recovery", project, page], queryFn: () => sb.recoverySettings.list(project, { page, per_page: 25 }) });
  const installed = useQuery({ queryKey: ["connectors", project], queryFn: () => sb.projectConnectors.list(project) });
  const remove = useMutation({
    mutationFn: (id: string) => sb.recoverySettings.delete(project, id),
    onSuccess: () => client.invalidateQueries({ queryKey: ["recovery", project] }),
  });
  const rows = settings.data?.data as (Setting & { status: string | null; last_probe_at: string | null })[] | undefined;
  const edited = rows?.find((r) => r.id === editing) ?? null;
  const taken = new Set(rows?.map((r) => r.connector));
  const free = (installed.data?.data ?? []).map((i) => i.connector).filter((c) => !taken.has(c));
  return (
    <>
      <h1>Recovery</h1>
      <p>What SubBridge keeps ready for the day a bot is banned or a chat is lost: health checks and a standby bot that takes over.</p>
      <ErrorNote error={settings.error ?? installed.error ?? remove.error} />
      <DataTable
        caption="Recovery settings"
        rows={rows}
        meta={settings.data?.meta}
        onPage={setPage}
        rowKey={(r) => r.id}
        empty="No recovery setting yet."
        columns={[
          { header: "Connector", cell: (r) => r.connector },
          { header: "Health checks", cell: (r) => (r.probes.enabled ? `every ${r.probes.interval_minutes} min` : "off") },
          { header: "Standby", cell: (r) => (r.standby_installation_id ? <code>{r.standby_installation_id}</code> : "—") },
          // Relinking is no shipped connector's claim: the column shows only for a setting that still has it on.
          ...(rows?.some((r) => r.identity_relink.enabled)
            ? [{ header: "Relinking", cell: (r: (typeof rows)[number]) => (r.identity_relink.enabled ? "on" : "off") }]
            : []),
          { header: "Status", cell: (r) => `${r.status ?? "not checked yet"}${r.last_probe_at ? ` (${formatDate(r.last_probe_at)})` : ""}` },
          {
            header: "Actions",
            cell: (r) => (
              <div className="actions">
                <Button variant="secondary" aria-label={`Change the ${r.connector} setting`} onPress={() => setEditing(r.id)}>
                  Change
                </Button>
                <ConfirmButton
                  label={`Delete the ${r.connector} setting`}
                  title={`Delete the ${r.connector} recovery setting?`}
                  confirmLabel="Delete setting"
                  variant="danger"
                  onConfirm={() => remove.mutateAsync(r.id)}
                >
                  Health checks, the standby and relinking stop for this connector.
                </ConfirmButton>
              </div>
            ),
          },
        ]}
      />
      <CopyAsCode op="list_recovery_settings" path={{ project }} input={{ page, per_page: 25 }} />
      <CopyAsCode op="delete_recovery_setting" path={{ project }} label="Copy delete as code" />
      {edited ? (
        <RecoveryForm key={edited.id} project={project} editing={edited} connectors={[edited.connector]} onDone={() => setEditing(null)} />
      ) : free.length ? (
        <RecoveryForm key="new" project={project} editing={null} connectors={free} onDone={() => undefined} />
      ) : installed.data ? (
        <p>Every installed connector has its recovery setting{installed.data.data.length ? "" : " (no connector is installed yet)"}.</p>
      ) : null}
    </>
  );
}
