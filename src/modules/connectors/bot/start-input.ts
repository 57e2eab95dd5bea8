// What a member's /start brings to the bot: the installation it reached, who sent it, its payload.
import type { PlatformAccount } from "../../members/members.ts";
import type { InstallationRow } from "../tables.ts";
import type { BotTexts } from "./texts.ts";

export interface StartInput {
  installation: InstallationRow;
  account: PlatformAccount;
  /** The text after "/start ", or null for a bare /start. */
  payload: string | null;
  /** The subscriber portal's base address (the project's portal is <portal>/<handle>). */
  portalUrl: string;
  /** The words the bot answers in: the member's language when the package ships it (texts.ts). */
  texts: BotTexts;
}
