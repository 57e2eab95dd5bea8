// export_members: the project's members matching the list's filters as a CSV download, read 1,000
// rows a statement by keyset and written as they are read (docs/members.md, "Export").
import type { FileBody } from "../../../generated/operations.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { keysetChunks } from "../../db/pages.ts";
import { csvFile, csvFilename, type CsvColumn } from "../exports/csv-file.ts";
import { visibleProjectHandle } from "../projects/tables.ts";
import { matchingMembers, presentListed, type MemberFilter } from "./members.ts";
import type { MemberRow } from "./tables.ts";

/** Rows a statement reads: bounded memory whatever the project's size. */
export const EXPORT_CHUNK = 1000;

type Listed = Awaited<ReturnType<typeof presentListed>>[number];

const COLUMNS: readonly CsvColumn<Listed>[] = [
  { header: "id", cell: (m) => m.id },
  { header: "display_name", cell: (m) => m.display_name },
  { header: "email", cell: (m) => m.email },
  { header: "status", cell: (m) => m.status },
  { header: "access_state", cell: (m) => m.access_state },
  { header: "connector_key", cell: (m) => m.connector_key },
  { header: "external_user_id", cell: (m) => m.external_user_id },
  { header: "plan_ids", cell: (m) => m.plans.map((p) => p.id).join("; ") },
  { header: "plans", cell: (m) => m.plans.map((p) => p.name).join("; ") },
  { header: "joined_at", cell: (m) => m.joined_at },
  { header: "created_at", cell: (m) => m.created_at },
  { header: "banned_at", cell: (m) => m.banned_at },
  { header: "ban_reason", cell: (m) => m.ban_reason },
];

export type MemberExportFilter = MemberFilter & { joinedFrom?: string; joinedTo?: string };

export async function exportMembers(ctx: DomainContext, projectId: string, filter: MemberExportFilter): Promise<FileBody> {
  // Tenancy is settled before the answer starts: a foreign project answers 404, not a broken file.
  const handle = await visibleProjectHandle(ctx, projectId);
  async function* listed() {
    for await (const rows of keysetChunks<MemberRow>(() => matchingMembers(ctx, projectId, filter), EXPORT_CHUNK, "members"))
      yield await presentListed(ctx, projectId, rows);
  }
  return csvFile(csvFilename(handle, "members", ctx.now), COLUMNS, listed());
}
