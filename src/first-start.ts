// What the first start of an empty embedded database tells about the demo account it created.
// The password and the token are secrets, and stdout is usually the log stream (a supervisor's
// journal, a container's log driver): they are printed only to a person's terminal, and otherwise
// written to a file under DATA_DIR that only this user can read, whose path is printed instead.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DemoAccount } from "./operator.ts";

/** The file under DATA_DIR holding the demo account's secrets when stdout is not a terminal. */
export const DEMO_CREDENTIALS_FILE = "first-start-credentials.txt";

/** The lines naming the demo account, its secrets included. */
function secretLines(demo: DemoAccount, apiUrl: string): string[] {
  return [
    `  creator       ${demo.email} (password ${demo.password})`,
    `  team          ${demo.teamId}`,
    `  project       ${demo.projectId} (Demo Community)`,
    `  token         ${demo.token.token}`,
    `                (every grantable ability; shown only this once - store it now)`,
    "",
    "Try it:",
    `  curl -H "Authorization: Bearer ${demo.token.token}" ${apiUrl}/v1/teams/current`,
  ];
}

/**
 * The banner's lines about the demo account: the secrets themselves on a terminal (`tty`), else
 * the account without them and the path of the file (mode 0600) they were written to.
 */
export function demoAccountLines(demo: DemoAccount, options: { apiUrl: string; tty: boolean; dataDir: string }): string[] {
  const heading = "First start: created a demo creator, team and project.";
  if (options.tty) return [heading, ...secretLines(demo, options.apiUrl)];
  const path = join(options.dataDir, DEMO_CREDENTIALS_FILE);
  writeFileSync(path, [heading, ...secretLines(demo, options.apiUrl)].join("\n") + "\n", { mode: 0o600 });
  // The mode given above applies only to a new file; one left by an earlier database is narrowed too.
  chmodSync(path, 0o600);
  return [
    heading,
    `  creator       ${demo.email}`,
    `  team          ${demo.teamId}`,
    `  project       ${demo.projectId} (Demo Community)`,
    `  password and token (shown only this once) are in ${path}, readable by this user only:`,
    "  store them, then delete the file.",
  ];
}
