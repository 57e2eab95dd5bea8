import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createProject, deleteProject, getProject, listProjects, updateProject } from "./projects.ts";

export const handlers = {
  async list_projects({ query }, ctx) {
    const { rows, total } = await listProjects(domainContext(ctx), pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_project({ body }, ctx) {
    return { data: await createProject(domainContext(ctx), body) };
  },
  async get_project({ path }, ctx) {
    return { data: await getProject(domainContext(ctx), path.project) };
  },
  async update_project({ path, body }, ctx) {
    return { data: await updateProject(domainContext(ctx), path.project, body) };
  },
  async delete_project({ path }, ctx) {
    await deleteProject(domainContext(ctx), path.project);
  },
} satisfies AreaHandlers<OperationContext, "projects">;
