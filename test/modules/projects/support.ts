// What the projects tests share: an API, helpers to create projects and read what a change wrote.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { ApiClient, type TestResponse } from "../../helpers/http.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf, type OutboxEvent } from "../../helpers/events.ts";
import { seedInstallation } from "../../helpers/platforms.ts";

export const handle = (prefix = "proj") => `${prefix}-${randomBytes(5).toString("hex")}`;

export function patch(client: ApiClient, path: string, body: unknown): Promise<TestResponse> {
  return client.request("PATCH", path, { body });
}

export async function createProjectVia(client: ApiClient, body: Record<string, unknown> = {}) {
  const res = await client.post("/v1/projects", { name: "Night Owls", ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as Record<string, any> & { id: string; handle: string; name: string };
}

/** The events of `type` about the project, each checked against its webhook schema. */
export async function projectEvents(teamId: string, type: string, projectId: string): Promise<OutboxEvent[]> {
  const events = (await eventsOf(teamId, type)).filter((e) => e.data.project?.id === projectId);
  for (const event of events) {
    assertValidEvent(event);
    assert.equal(event.project_id, projectId);
  }
  return events;
}

/** The project's activity entries of `event` (subject_type project). */
export async function projectActivity(teamId: string, projectId: string, event: string) {
  const { db } = await testDatabase();
  return (await db("activity_log").where({ team_id: teamId, subject_type: "project", subject_id: projectId, event }).select("*")) as {
    project_id: string;
    actor_kind: string;
    properties: any;
  }[];
}

/** Everything a refused projects call must leave alone on a team. */
export async function snapshot(teamId: string) {
  const { db } = await testDatabase();
  return {
    projects: await db("projects").where({ team_id: teamId }).orderBy("id").select("*"),
    handles: await db("project_handles").where({ team_id: teamId }).orderBy("handle").select("*"),
    activity: (await db("activity_log").where({ team_id: teamId }).whereNot({ event: "tool_invoked" }).count({ n: "*" }).first())!.n,
    events: (await eventsOf(teamId)).length,
  };
}

/** One row in each table get_project counts (plans, resources, members, installations). */
export async function fillProject(creator: TestCreator, projectId: string, counts: { plans: number; resources: number; members: number }) {
  const { db } = await testDatabase();
  const now = new Date();
  const owned = { team_id: creator.teamId, project_id: projectId, created_at: now, updated_at: now };
  await seedInstallation(creator.teamId, projectId);
  for (let i = 0; i < counts.plans; i++)
    await db("plans").insert({ id: randomUUID(), ...owned, name: `Plan ${i}`, amount_minor: 500, currency: "EUR", billing_cycle: "month" });
  for (let i = 0; i < counts.resources; i++)
    await db("resources").insert({
      id: randomUUID(),
      ...owned,
      connector_key: "telegram",
      kind: "telegram-group",
      grant_mode: "membership",
      title: `R${i}`,
    });
  for (let i = 0; i < counts.members; i++) await db("members").insert({ id: randomUUID(), ...owned, status: i % 2 ? "lead" : "customer" });
}
