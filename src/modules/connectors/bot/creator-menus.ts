// The bot's command menu in each linked creator's private chat (issue 46): when a bot starts
// serving an installation (install, a new token), every creator of the team whose account on the
// platform is already linked gets the member commands plus the creator commands their role grants
// (Telegram's BotCommandScopeChat, through a platform task after COMMIT). A creator who links later
// gets theirs then (identity-link.ts).
import { unscoped, type DomainContext } from "../../../db/tenant.ts";
import { queueCommandMenu } from "../platform-tasks.ts";
import type { InstallationRow } from "../tables.ts";
import { commandsAllowed } from "./admin.ts";
import { commandMenu } from "./bot-commands.ts";

/** Connectors whose bots have a per-chat command menu (the driver's setCommands); Discord's slash commands are registered per server. */
const MENU_CONNECTORS = ["telegram"];

/** Queues, in `ctx`'s transaction, the menu of each linked creator of the team who may use a creator command here; answers how many. */
export async function queueCreatorMenus(ctx: DomainContext, installation: InstallationRow): Promise<number> {
  if (!MENU_CONNECTORS.includes(installation.connector_key)) return 0;
  const db = unscoped(ctx, "the bot's menus: which of the team's creators linked an account on the platform (identities belong to people)");
  const accounts = (await db("identities")
    .where({ connector: installation.connector_key })
    .where((q) =>
      q
        .whereIn("user_id", db("teams").where({ id: installation.team_id }).select("owner_user_id"))
        .orWhereIn("user_id", db("team_members").where({ team_id: installation.team_id }).select("user_id")),
    )
    .orderBy("linked_at")
    .pluck("account_id")) as string[];
  let queued = 0;
  for (const accountId of accounts) {
    const account = { connectorKey: installation.connector_key, externalUserId: accountId, displayName: null };
    const allowed = await commandsAllowed(ctx, { installation, account });
    if (!allowed.length) continue;
    await queueCommandMenu(ctx, installation, accountId, commandMenu(allowed));
    queued++;
  }
  return queued;
}
