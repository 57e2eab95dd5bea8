// Where members enter a project: the deep link that opens the project's connector bot with a
// start payload (rule 7: only what the bot reads as a bare UUID is acted on), and the subscriber
// portal's address for the current handle.
import { domainRefusal, notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { readStartPayload } from "@subbridge/sdk/connector";
import { projectsTable } from "../projects/projects.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { plansTable } from "../plans/tables.ts";
import { attachedBot } from "../connectors/installations.ts";

export interface DeepLinkQuery {
  plan_id?: string;
  access_code?: string;
  custom?: string;
}

type PayloadKind = "access_code" | "plan_id" | "custom" | "project";

/** What the bot would do with `payload`, in words, when it would act on it; null when it only opens the home screen. */
function actionOf(payload: string): string | null {
  const read = readStartPayload(payload);
  if (read.kind === "auth") return "a portal sign-in handoff (auth_...)";
  if (read.kind === "command") return "an admin command (-...)";
  if (read.kind === "uuid") return "a plan or an access code (a bare UUID)";
  return null;
}

/** The payload the precedence picks (access_code over plan_id over custom), checked. */
async function chosenPayload(ctx: DomainContext, projectId: string, query: DeepLinkQuery): Promise<{ payload: string; kind: PayloadKind }> {
  if (query.access_code !== undefined) {
    const action = actionOf(query.access_code);
    if (action && readStartPayload(query.access_code).kind !== "uuid")
      throw validationFailed({ access_code: [`the bot would read this as ${action}, not as an access code`] });
    return { payload: query.access_code, kind: "access_code" };
  }
  if (query.plan_id !== undefined) {
    const plan = await plansTable.rows(ctx).where({ id: query.plan_id, project_id: projectId }).first("id");
    if (!plan) throw notFound("plan in this project");
    return { payload: query.plan_id.toLowerCase(), kind: "plan_id" };
  }
  if (query.custom !== undefined) {
    const action = actionOf(query.custom);
    if (action) throw validationFailed({ custom: [`the bot would read this as ${action}; a custom payload is never acted on`] });
    return { payload: query.custom, kind: "custom" };
  }
  return { payload: `project_${projectId}`, kind: "project" };
}

export async function deepLink(ctx: DomainContext, projectId: string, query: DeepLinkQuery) {
  await assertProjectsVisible(ctx, [projectId]);
  const bot = await attachedBot(ctx, projectId);
  if (!bot?.bot_url) {
    throw domainRefusal(
      "The project has no connected installation with a bot; install a connector (POST /v1/projects/{project}/connectors/telegram) first.",
      {
        reason: "no_bot_attached",
        project_id: projectId,
      },
    );
  }
  const { payload, kind } = await chosenPayload(ctx, projectId, query);
  const link = new URL(bot.bot_url);
  link.searchParams.set("start", payload);
  return {
    project_id: projectId,
    connector: bot.connector_key,
    bot_url: bot.bot_url,
    start_payload: payload,
    deep_link: link.toString(),
    payload_kind: kind,
    acted_on: kind === "access_code" || kind === "plan_id",
  };
}

export async function portalUrl(ctx: DomainContext, portalBase: string, projectId: string) {
  await assertProjectsVisible(ctx, [projectId]);
  const project = (await projectsTable.rows(ctx).where({ id: projectId }).first("handle")) as { handle: string };
  return { project_id: projectId, handle: project.handle, portal_url: `${portalBase}/${encodeURIComponent(project.handle)}` };
}
