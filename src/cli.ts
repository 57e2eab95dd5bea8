// Operator commands. Each prints JSON on stdout; a refusal prints a message on stderr and exits 1.
//   npm run cli -- creator:create --email E --password P --tier free|starter|growth
//   npm run cli -- token:mint --email E --abilities all|a,b,c [--project UUID ...] [--name N]
//   npm run cli -- project:create --email E --name N
//   npm run cli -- migrate
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "./config.ts";
import { migrate, openConfiguredDatabase } from "./db/database.ts";
import { EmbeddedDatabaseError } from "./db/embedded.ts";
import { ApiError } from "./errors.ts";
import { createDomainContext } from "./db/tenant.ts";
import { TIERS, type Tier } from "./modules/account/creators.ts";
import { createProject } from "./modules/projects/projects.ts";
import { AccountError, createCreatorAccount, mintTokenForCreator } from "./operator.ts";
import { findCreatorByEmail } from "./modules/account/creators.ts";

const USAGE = `usage: npm run cli -- <command> [options]
  creator:create --email E --password P --tier ${TIERS.join("|")}
  token:mint     --email E --abilities all|a,b,c [--project UUID ...] [--name NAME]
  project:create --email E --name NAME
  migrate`;

class UsageError extends Error {}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      password: { type: "string" },
      tier: { type: "string" },
      abilities: { type: "string" },
      project: { type: "string", multiple: true },
      name: { type: "string" },
    },
    strict: true,
  });
  const config = loadConfig();
  // With the embedded database, this command connects to the running server's socket if there is
  // one (and sees what it sees); alone, it opens the database itself for the command's duration.
  const database = await openConfiguredDatabase({ url: config.databaseUrl, dataDir: config.dataDir, mode: "share" });
  const { db } = database;
  try {
    const applied = await migrate(db);
    const now = new Date();
    switch (command) {
      case "migrate":
        return { applied };
      case "creator:create": {
        const tier = required(values, "tier").toLowerCase();
        if (!TIERS.includes(tier as Tier)) throw new UsageError(`--tier must be one of ${TIERS.join(", ")}`);
        return await createCreatorAccount(db, { email: required(values, "email"), password: required(values, "password"), tier: tier as Tier }, now);
      }
      case "token:mint": {
        const abilities = required(values, "abilities");
        return await mintTokenForCreator(
          db,
          {
            email: required(values, "email"),
            abilities:
              abilities === "all"
                ? "all"
                : abilities
                    .split(",")
                    .map((a) => a.trim())
                    .filter(Boolean),
            projectIds: values.project ?? [],
            ...(values.name ? { name: values.name } : {}),
          },
          now,
        );
      }
      case "project:create": {
        const creator = await findCreatorByEmail(db, required(values, "email"));
        if (!creator?.current_team_id) throw new AccountError(`no creator with a team for ${values.email}`);
        const actor = {
          userId: creator.id,
          teamId: creator.current_team_id,
          projectIds: null,
          kind: "system" as const,
          credentialKind: null,
          requestId: null,
        };
        const project = await db.transaction((trx) => createProject(createDomainContext(trx, actor, now), { name: required(values, "name") }));
        return { project_id: project.id, handle: project.handle, team_id: creator.current_team_id };
      }
      default:
        throw new UsageError(command ? `unknown command ${command}` : "a command is required");
    }
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (result) => console.log(JSON.stringify(result)),
  (err: unknown) => {
    if (err instanceof UsageError) console.error(`${err.message}\n${USAGE}`);
    else if (err instanceof AccountError || err instanceof ConfigError || err instanceof EmbeddedDatabaseError) console.error(err.message);
    else if (err instanceof ApiError) console.error(`${err.code}: ${err.message}`);
    else if (err instanceof TypeError && (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) console.error(`${err.message}\n${USAGE}`);
    else console.error(err);
    process.exit(1);
  },
);
