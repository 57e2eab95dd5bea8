// The Discord installation's "Removals on hold" (issue 45): what a drift sweep would have taken at
// once and took from nobody, each open hold with Confirm (asked once more: the next sweep takes the
// role) and Cancel; decided holds stay listed, greyed. useOpenRemovalHolds feeds the Overview's notice.
import { Link } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { components } from "@subbridge/sdk";
import { useDashboard } from "../context";
import { formatDate } from "../format";
import { Button, ConfirmButton, ErrorNote } from "../ui/kit";
import { CopyAsCode } from "../ui/copy-as-code";

type RemovalHold = components["schemas"]["RemovalHold"];

const holdsKey = (project: string) => ["removal-holds", project, "discord"];

/** The Discord installation's holds, newest first (the first 100: a sweep holds at most one per role). */
export function useRemovalHolds(project: string, enabled = true) {
  const { sb } = useDashboard();
  return useQuery({ queryKey: holdsKey(project), queryFn: () => sb.removalHolds.list(project, "discord", { per_page: 100 }), enabled });
}

const DECIDED: Record<string, string> = { confirmed: "Confirmed", cancelled: "Cancelled" };

function HoldRow({ project, hold }: { project: string; hold: RemovalHold }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: holdsKey(project) });
  const confirm = useMutation({ mutationFn: () => sb.removalHolds.confirm(project, "discord", hold.id), onSuccess: refresh });
  const cancel = useMutation({ mutationFn: () => sb.removalHolds.cancel(project, "discord", hold.id), onSuccess: refresh });
  const role = `@${hold.resource.title || hold.platform_ref}`;
  const open = hold.status === "held";
  return (
    <li className={open ? undefined : "decided"} aria-label={`Hold on ${role}`}>
      <span>
        <strong>{role}</strong>: {hold.planned_count} of its {hold.holders} holders would lose it{" "}
        <span className="hint">
          held {formatDate(hold.created_at)}
          {open
            ? ""
            : ` · ${DECIDED[hold.status]} ${formatDate(hold.decided_at)}${hold.applied_at ? `, removed ${formatDate(hold.applied_at)}` : ""}`}
        </span>
      </span>
      {open ? (
        <span className="actions">
          <ConfirmButton
            label="Confirm"
            title={`Remove ${role} from ${hold.planned_count} members?`}
            confirmLabel="Remove the role"
            variant="danger"
            onConfirm={() => confirm.mutateAsync()}
          >
            Within 15 minutes SubBridge takes {role} from the {hold.planned_count} members who hold it without a paid grant. This cannot be undone
            from here.
          </ConfirmButton>
          <Button variant="secondary" isDisabled={cancel.isPending} aria-label={`Keep ${role} for them`} onPress={() => cancel.mutate()}>
            Cancel
          </Button>
        </span>
      ) : null}
      <ErrorNote error={confirm.error ?? cancel.error} />
    </li>
  );
}

/** The Overview's notice: open holds of the project's Discord installation, linking to them. */
export function OpenHoldsNotice({ project }: { project: string }) {
  const { sb } = useDashboard();
  // The Connectors page's query: one request serves both pages.
  const installed = useQuery({ queryKey: ["connectors", project], queryFn: () => sb.projectConnectors.list(project) });
  const holds = useRemovalHolds(project, Boolean(installed.data?.data.some((c) => c.connector === "discord")));
  const open = (holds.data?.data ?? []).filter((h) => h.status === "held");
  if (!open.length) return null;
  return (
    <p className="notice error" role="alert">
      {open.length === 1 ? "A mass removal of a Discord role is" : `${open.length} mass removals of Discord roles are`} waiting for you: nobody lost
      the role yet.{" "}
      <Link to="/projects/$project/connectors" params={{ project }} hash="removal-holds">
        Confirm or cancel on the Connectors page
      </Link>
      .
    </p>
  );
}

/** The section under the Discord installation on the Connectors page. */
export function RemovalHolds({ project }: { project: string }) {
  const holds = useRemovalHolds(project);
  const rows = holds.data?.data ?? [];
  return (
    <div className="stack" id="removal-holds">
      <h3>Removals on hold</h3>
      <ErrorNote error={holds.error} />
      {rows.length ? (
        <ul className="choices" aria-label="Removals on hold">
          {rows.map((hold) => (
            <HoldRow key={hold.id} project={project} hold={hold} />
          ))}
        </ul>
      ) : (
        <p className="hint">
          None. When one sweep would take a paid role from many members at once (an outage or a mistake rather than churn), it takes it from nobody
          and asks you here.
        </p>
      )}
      <CopyAsCode op="list_removal_holds" path={{ project, connector: "discord" }} />
    </div>
  );
}
