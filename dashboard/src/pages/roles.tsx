// The team's custom roles (what a member's role lets them do on every project) and groups (extra
// abilities for some members on some projects): list, create, change and delete. Both are the
// Growth tier's; a lower tier sees the API's refusal. Built-in roles are shown, never changed.
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RESOURCE_OPERATIONS } from "@subbridge/sdk";
import { useDashboard } from "../context";
import { Button, ConfirmButton, ErrorNote, Field, fieldErrors } from "../ui/kit";
import { DataTable } from "../ui/table";
import { CopyAsCode } from "../ui/copy-as-code";

/** Every ability an operation of the API needs, by what it is about ("plan", "webhook-endpoint"...). */
const ABILITIES = [...new Set(Object.values(RESOURCE_OPERATIONS).map((op): string | null => op.ability))]
  .filter((a): a is string => a !== null)
  .sort();

function abilityGroups(extra: string[]): [string, string[]][] {
  const byGroup = new Map<string, string[]>();
  for (const ability of [...new Set([...ABILITIES, ...extra])].sort()) {
    const group = ability.split(":")[0]!;
    byGroup.set(group, [...(byGroup.get(group) ?? []), ability]);
  }
  return [...byGroup];
}

export function AbilityPicker(props: { legend: string; value: string[]; onChange: (value: string[]) => void; error?: string | undefined }) {
  const groups = abilityGroups(props.value);
  return (
    <fieldset className="events abilities">
      <legend>
        {props.legend} ({props.value.length} chosen)
      </legend>
      {groups.map(([group, abilities]) => {
        const chosen = abilities.filter((a) => props.value.includes(a)).length;
        return (
          <details key={group}>
            <summary>
              {group} {chosen ? `(${chosen})` : ""}
            </summary>
            {abilities.map((ability) => (
              <label key={ability}>
                <input
                  type="checkbox"
                  checked={props.value.includes(ability)}
                  onChange={(e) => props.onChange(e.target.checked ? [...props.value, ability] : props.value.filter((a) => a !== ability))}
                />{" "}
                {ability}
              </label>
            ))}
          </details>
        );
      })}
      {props.error ? <span className="field-error">{props.error}</span> : null}
    </fieldset>
  );
}

function CheckList(props: {
  legend: string;
  options: { value: string; label: string }[];
  value: string[];
  onChange: (v: string[]) => void;
  error?: string | undefined;
}) {
  return (
    <fieldset className="events">
      <legend>{props.legend}</legend>
      {props.options.length ? null : <span className="hint">None yet.</span>}
      {props.options.map((o) => (
        <label key={o.value}>
          <input
            type="checkbox"
            checked={props.value.includes(o.value)}
            onChange={(e) => props.onChange(e.target.checked ? [...props.value, o.value] : props.value.filter((v) => v !== o.value))}
          />{" "}
          {o.label}
        </label>
      ))}
      {props.error ? <span className="field-error">{props.error}</span> : null}
    </fieldset>
  );
}

interface Editable {
  id: string;
  code: string;
  name: string;
  abilities: string[];
  project_ids?: string[];
  member_ids?: string[];
}

/** One form for a new role or group (code, name, abilities; a group adds projects and members) and for changing one. */
function RoleOrGroupForm(props: {
  kind: "role" | "group";
  editing: Editable | null;
  projects: { value: string; label: string }[];
  members: { value: string; label: string }[];
  onDone: () => void;
}) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const { kind, editing } = props;
  const noun = kind === "role" ? "Role" : "Group";
  const [form, setForm] = useState({ code: editing?.code ?? "", name: editing?.name ?? "" });
  const [abilities, setAbilities] = useState<string[]>(editing?.abilities ?? []);
  const [projectIds, setProjectIds] = useState<string[]>(editing?.project_ids ?? []);
  const [memberIds, setMemberIds] = useState<string[]>(editing?.member_ids ?? []);
  const common = { name: form.name.trim(), abilities };
  const body = kind === "role" ? common : { ...common, project_ids: projectIds, member_ids: memberIds };
  const save = useMutation({
    mutationFn: (): Promise<unknown> => {
      if (kind === "role")
        return editing ? sb.roles.update(editing.id, body as never) : sb.roles.create({ code: form.code.trim(), ...body } as never);
      return editing ? sb.groups.update(editing.id, body as never) : sb.groups.create({ code: form.code.trim(), ...body } as never);
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: [kind === "role" ? "roles" : "groups"] });
      if (!editing) {
        setForm({ code: "", name: "" });
        setAbilities([]);
      }
      props.onDone();
    },
  });
  const problems = fieldErrors(save.error);
  const headingId = `${kind}-form`;
  const op = kind === "role" ? (editing ? "update_role" : "create_role") : editing ? "update_group" : "create_group";
  return (
    <form
      className="stack"
      aria-labelledby={headingId}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h3 id={headingId}>{editing ? `Change ${editing.name}` : `New ${kind}`}</h3>
      {editing ? null : (
        <Field
          label={`${noun} code`}
          name="code"
          value={form.code}
          onChange={(code) => setForm({ ...form, code })}
          isRequired
          error={problems.code}
          description="Lower-case letters, digits, hyphens and underscores, like support-desk"
        />
      )}
      <Field label={`${noun} name`} name="name" value={form.name} onChange={(name) => setForm({ ...form, name })} isRequired error={problems.name} />
      <AbilityPicker legend={`${noun} abilities`} value={abilities} onChange={setAbilities} error={problems.abilities} />
      {kind === "group" ? (
        <>
          <CheckList legend="Projects" options={props.projects} value={projectIds} onChange={setProjectIds} error={problems.project_ids} />
          <CheckList legend="Members" options={props.members} value={memberIds} onChange={setMemberIds} error={problems.member_ids} />
        </>
      ) : null}
      <ErrorNote error={save.error && !Object.keys(problems).length ? save.error : null} />
      <div className="actions">
        <Button type="submit" isDisabled={save.isPending}>
          {editing ? `Save ${kind}` : `Create ${kind}`}
        </Button>
        {editing ? (
          <Button variant="secondary" onPress={props.onDone}>
            Cancel
          </Button>
        ) : null}
      </div>
      <CopyAsCode op={op} path={editing ? { [kind]: editing.id } : {}} input={editing ? body : { code: form.code || `my-${kind}`, ...body }} />
    </form>
  );
}

export function RolesPage() {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const [rolePage, setRolePage] = useState(1);
  const [groupPage, setGroupPage] = useState(1);
  const [editRole, setEditRole] = useState<string | null>(null);
  const [editGroup, setEditGroup] = useState<string | null>(null);
  const roles = useQuery({ queryKey: ["roles", rolePage], queryFn: () => sb.roles.list({ page: rolePage, per_page: 25 }) });
  const groups = useQuery({ queryKey: ["groups", groupPage], queryFn: () => sb.groups.list({ page: groupPage, per_page: 25 }) });
  const projects = useQuery({ queryKey: ["projects"], queryFn: () => sb.projects.list({ per_page: 100 }) });
  const team = useQuery({ queryKey: ["team"], queryFn: () => sb.teams.retrieveCurrent() });
  const teamId = team.data?.data.id;
  const members = useQuery({ enabled: Boolean(teamId), queryKey: ["team-members", teamId], queryFn: () => sb.teamMembers.list(teamId!) });
  const deleteRole = useMutation({
    mutationFn: (id: string) => sb.roles.delete(id),
    onSuccess: () => client.invalidateQueries({ queryKey: ["roles"] }),
  });
  const deleteGroup = useMutation({
    mutationFn: (id: string) => sb.groups.delete(id),
    onSuccess: () => client.invalidateQueries({ queryKey: ["groups"] }),
  });
  const projectOptions = (projects.data?.data ?? []).map((p) => ({ value: p.id, label: p.name }));
  const memberOptions = ((members.data?.data ?? []) as { user_id?: string; id?: string; email?: string; name?: string }[]).map((m) => ({
    value: String(m.user_id ?? m.id),
    label: m.email ?? m.name ?? String(m.user_id ?? m.id),
  }));
  const role = roles.data?.data.find((r) => r.id === editRole);
  const group = groups.data?.data.find((g) => g.id === editGroup);
  return (
    <>
      <h1>Roles and groups</h1>
      <p>
        A role is what a team member may do on every project; a group adds abilities for some members on some projects. Custom roles and groups are
        part of the Growth tier.
      </p>
      <section className="stack" aria-labelledby="roles">
        <h2 id="roles">Roles</h2>
        <ErrorNote error={roles.error ?? deleteRole.error} />
        <DataTable
          caption="Roles"
          rows={roles.data?.data}
          meta={roles.data?.meta}
          onPage={setRolePage}
          rowKey={(r) => r.id}
          columns={[
            { header: "Name", cell: (r) => r.name },
            { header: "Code", cell: (r) => <code>{r.code}</code> },
            { header: "Abilities", cell: (r) => String(r.abilities.length) },
            {
              header: "Actions",
              cell: (r) =>
                r.built_in ? (
                  <span className="hint">Built in</span>
                ) : (
                  <div className="actions">
                    <Button variant="secondary" aria-label={`Change ${r.name}`} onPress={() => setEditRole(r.id)}>
                      Change
                    </Button>
                    <ConfirmButton
                      label={`Delete ${r.name}`}
                      title={`Delete the role ${r.name}?`}
                      confirmLabel="Delete role"
                      variant="danger"
                      onConfirm={() => deleteRole.mutateAsync(r.id)}
                    >
                      Members holding it get the default role.
                    </ConfirmButton>
                  </div>
                ),
            },
          ]}
        />
        <CopyAsCode op="list_roles" input={{ page: rolePage, per_page: 25 }} />
        <CopyAsCode op="delete_role" label="Copy delete as code" />
        <RoleOrGroupForm
          key={role?.id ?? "new-role"}
          kind="role"
          editing={role ?? null}
          projects={projectOptions}
          members={memberOptions}
          onDone={() => setEditRole(null)}
        />
      </section>
      <section className="stack" aria-labelledby="groups">
        <h2 id="groups">Groups</h2>
        <ErrorNote error={groups.error ?? deleteGroup.error} />
        <DataTable
          caption="Groups"
          rows={groups.data?.data}
          meta={groups.data?.meta}
          onPage={setGroupPage}
          rowKey={(g) => g.id}
          empty="No group yet."
          columns={[
            { header: "Name", cell: (g) => g.name },
            { header: "Code", cell: (g) => <code>{g.code}</code> },
            { header: "Abilities", cell: (g) => String(g.abilities.length) },
            { header: "Projects", cell: (g) => String(g.project_ids.length) },
            { header: "Members", cell: (g) => String(g.member_ids.length) },
            {
              header: "Actions",
              cell: (g) => (
                <div className="actions">
                  <Button variant="secondary" aria-label={`Change ${g.name}`} onPress={() => setEditGroup(g.id)}>
                    Change
                  </Button>
                  <ConfirmButton
                    label={`Delete ${g.name}`}
                    title={`Delete the group ${g.name}?`}
                    confirmLabel="Delete group"
                    variant="danger"
                    onConfirm={() => deleteGroup.mutateAsync(g.id)}
                  >
                    Its members lose what the group gave them.
                  </ConfirmButton>
                </div>
              ),
            },
          ]}
        />
        <CopyAsCode op="list_groups" input={{ page: groupPage, per_page: 25 }} />
        <CopyAsCode op="delete_group" label="Copy delete as code" />
        <RoleOrGroupForm
          key={group?.id ?? "new-group"}
          kind="group"
          editing={group ?? null}
          projects={projectOptions}
          members={memberOptions}
          onDone={() => setEditGroup(null)}
        />
      </section>
    </>
  );
}
