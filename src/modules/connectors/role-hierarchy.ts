// Discord's role hierarchy at publish: a bot gives only roles below its own highest role, and only
// with Manage Roles, so a plan granting a role the bot cannot give would sell access that never
// arrives (Discord answers 50013 to every grant). Publishing asks the platform first, before the
// publish's transaction opens (the operation's preflight), and refuses naming the role and the fix.
import { ApiError } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import type { ResourceRow } from "../resources/tables.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { installationSession } from "./bot/session.ts";
import { installationsTable, type InstallationRow } from "./tables.ts";
import { onPlatform } from "./installations.ts";

/** What the creator does about each refusal a role probe names (the driver's words). */
function fixFor(reason: string, role: string): string {
  if (reason === "the role no longer exists") return `Pick another role for the resource "${role}", then publish again.`;
  if (reason === "the role is managed by an integration") return `Pick a role no integration manages instead of "${role}", then publish again.`;
  if (reason === "the bot lacks Manage Roles")
    return "Give the SubBridge role the Manage Roles permission in Server Settings → Roles, then publish again.";
  return `Drag the SubBridge role above ${role} in Server Settings → Roles, then publish again.`;
}

/**
 * Refuses (422 VALIDATION_FAILED, context.reason role_not_manageable) the first role among
 * `resources` the installation's bot cannot give; a platform that cannot be reached answers 422
 * with context.reason platform_unreachable rather than letting the plan go out unchecked.
 */
export async function refuseUnmanageableRoles(ctx: DomainContext, env: ConnectorEnvironment, resources: readonly ResourceRow[]): Promise<void> {
  const roles = resources.filter((r) => r.grant_mode === "role" && r.platform_ref !== null && r.installation_id !== null);
  if (!roles.length) return;
  const installations = (await installationsTable
    .rows(ctx)
    .whereIn("id", [...new Set(roles.map((r) => r.installation_id!))])
    .select("*")) as InstallationRow[];
  for (const installation of installations) {
    const own = roles.filter((r) => r.installation_id === installation.id);
    const session = installationSession(env, installation);
    const probe = await onPlatform(installation.connector_key, () => session.probe([], { roles: own.map((r) => r.platform_ref!) }));
    for (const resource of own) {
      const verdict = probe.places.find((p) => p.place === resource.platform_ref);
      const reason = !probe.account.ok ? (probe.account.reason ?? "the bot cannot reach the server") : verdict?.ok === false ? verdict.reason : null;
      if (reason === null || reason === undefined) continue;
      const fix = fixFor(reason, resource.title);
      throw new ApiError("VALIDATION_FAILED", `The bot cannot give the role "${resource.title}" (${reason}). ${fix}`, {
        context: {
          reason: "role_not_manageable",
          connector: installation.connector_key,
          resource_id: resource.id,
          role_id: resource.platform_ref,
          platform_reason: reason,
        },
        remediation: fix,
      });
    }
  }
}
