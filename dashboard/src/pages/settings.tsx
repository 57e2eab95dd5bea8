// A project's own settings: its name, description, links and portal handle (update_project sends
// only what changed; a different handle is Growth's, and the API's refusal is shown as it comes),
// archiving or restoring it (update_project's status), and deleting it for good.
import { useEffect, useState } from "react";
import { useNavigate, useParams } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, ConfirmButton, ErrorNote, Field, fieldErrors, Notice } from "../ui/kit";
import { CopyAsCode } from "../ui/copy-as-code";
import { formatDate } from "../format";

const TEXTS = ["name", "description", "terms_url", "privacy_url", "handle"] as const;
type Texts = Record<(typeof TEXTS)[number], string>;

/** The fields the form changed: an emptied description or link is null (the API clears it). */
export function changedProjectFields(before: Texts, after: Texts): Record<string, string | null> {
  const body: Record<string, string | null> = {};
  for (const key of TEXTS) {
    const value = after[key].trim();
    if (value === before[key]) continue;
    body[key] = value === "" && key !== "name" && key !== "handle" ? null : value;
  }
  return body;
}

export function ProjectSettingsPage() {
  const { project } = useParams({ strict: false }) as { project: string };
  const { sb } = useDashboard();
  const client = useQueryClient();
  const navigate = useNavigate();
  const current = useQuery({ queryKey: ["project", project], queryFn: () => sb.projects.retrieve(project) });
  const p = current.data?.data;
  const initial: Texts = {
    name: p?.name ?? "",
    description: p?.description ?? "",
    terms_url: p?.terms_url ?? "",
    privacy_url: p?.privacy_url ?? "",
    handle: p?.handle ?? "",
  };
  const [form, setForm] = useState<Texts>(initial);
  useEffect(() => {
    if (p) setForm(initial);
    // The form starts again from the project whenever the API answers a new version of it.
  }, [p?.updated_at]);
  const body = changedProjectFields(initial, form);
  const refresh = () =>
    Promise.all([client.invalidateQueries({ queryKey: ["project", project] }), client.invalidateQueries({ queryKey: ["projects"] })]);
  const update = useMutation({ mutationFn: () => sb.projects.update(project, body as never), onSuccess: refresh });
  const status = useMutation({
    mutationFn: (next: "archived" | "active") => sb.projects.update(project, { status: next }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => sb.projects.delete(project),
    onSuccess: async () => {
      client.removeQueries({ queryKey: ["project", project] });
      await client.invalidateQueries({ queryKey: ["projects"] });
      await navigate({ to: "/" });
    },
  });
  const problems = fieldErrors(update.error);
  const set = (key: keyof Texts) => (value: string) => setForm({ ...form, [key]: value });
  return (
    <>
      <h1>Project settings</h1>
      <ErrorNote error={current.error ?? status.error ?? remove.error} />
      {p ? (
        <>
          <form
            className="stack"
            aria-labelledby="about-project"
            onSubmit={(e) => {
              e.preventDefault();
              if (Object.keys(body).length) update.mutate();
            }}
          >
            <h2 id="about-project">About the project</h2>
            <Field label="Project name" name="name" value={form.name} onChange={set("name")} isRequired error={problems.name} />
            <Field
              label="Description"
              name="description"
              value={form.description}
              onChange={set("description")}
              multiline
              error={problems.description}
              description="Shown on the portal. Leave empty to remove it."
            />
            <Field
              label="Terms of service address"
              name="terms_url"
              type="url"
              value={form.terms_url}
              onChange={set("terms_url")}
              error={problems.terms_url}
              description="An https address, or empty for none."
            />
            <Field
              label="Privacy policy address"
              name="privacy_url"
              type="url"
              value={form.privacy_url}
              onChange={set("privacy_url")}
              error={problems.privacy_url}
              description="An https address, or empty for none."
            />
            <Field
              label="Portal handle"
              name="handle"
              value={form.handle}
              onChange={set("handle")}
              error={problems.handle}
              description="The portal's address. Choosing your own is part of the Growth tier; the old address stops working."
            />
            <ErrorNote error={update.error && !Object.keys(problems).length ? update.error : null} />
            {update.isSuccess && !Object.keys(body).length ? <Notice kind="success">Saved.</Notice> : null}
            <Button type="submit" isDisabled={update.isPending || !Object.keys(body).length}>
              Save changes
            </Button>
            <CopyAsCode op="update_project" path={{ project }} input={Object.keys(body).length ? body : { name: p.name }} />
          </form>
          <section className="stack" aria-labelledby="project-state">
            <h2 id="project-state">Archive or delete</h2>
            <p>
              {p.status === "archived" ? (
                <>Archived on {formatDate(p.archived_at)}: the portal shows it closed and nothing new can be bought. Restoring opens it again.</>
              ) : (
                <>Archiving keeps the project, its members and its handle, and closes it to new purchases.</>
              )}
            </p>
            <div className="actions">
              {p.status === "archived" ? (
                <Button variant="secondary" onPress={() => status.mutate("active")} isDisabled={status.isPending}>
                  Restore project
                </Button>
              ) : (
                <ConfirmButton
                  label="Archive project"
                  title={`Archive ${p.name}?`}
                  confirmLabel="Archive"
                  onConfirm={() => status.mutateAsync("archived")}
                >
                  The portal shows it closed and nothing new can be bought. You can restore it later.
                </ConfirmButton>
              )}
              <ConfirmButton
                label="Delete project"
                title={`Delete ${p.name} for good?`}
                confirmLabel="Delete project"
                variant="danger"
                onConfirm={() => remove.mutateAsync()}
              >
                Its plans, places, members, subscriptions and connectors are deleted, and its handle is never freed. This cannot be undone.
              </ConfirmButton>
            </div>
            <CopyAsCode
              op="update_project"
              path={{ project }}
              input={{ status: p.status === "archived" ? "active" : "archived" }}
              label="Copy archive as code"
            />
            <CopyAsCode op="delete_project" path={{ project }} label="Copy delete as code" />
          </section>
        </>
      ) : (
        <p>Loading…</p>
      )}
    </>
  );
}
