// What a broadcast's recipients read, and the connectors' messaging limits it must fit. The bots
// send text only (the drivers' sendMessage), so the image is the message's first line (the
// platforms preview a link) and each button a "label: address" line to the member portal; the
// manifest's max_length bounds the whole rendered text, max_buttons and buttons_per_row the rows.
import { addFieldError, emptyFieldErrors, validationFailed, type FieldErrors } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { portalPage } from "../alerts/links.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { plansTable } from "../plans/tables.ts";
import type { BroadcastButton } from "./tables.ts";

export interface BroadcastMessage {
  text: string;
  image_url: string | null;
  buttons: BroadcastButton[][];
}

/** The portal address a button leads to: the member's account page, or a plan on the project's page. */
function buttonAddress(handle: string, target: string): string {
  return target === "portal" ? `${portalPage(handle)}/account` : `${portalPage(handle)}#plan-${target.slice("plan:".length)}`;
}

/** The text each recipient's bot message carries. */
export function renderBroadcast(message: BroadcastMessage, projectHandle: string): string {
  const lines = message.buttons.flat().map((b) => `${b.label}: ${buttonAddress(projectHandle, b.target)}`);
  return [message.image_url, message.text.trim(), lines.length ? lines.join("\n") : null].filter((part) => part !== null).join("\n\n");
}

type Messaging = { max_length: number; max_buttons: number; buttons_per_row: number };

function checkButtons(fields: FieldErrors, buttons: BroadcastButton[][], key: string, limits: Messaging): void {
  const count = buttons.flat().length;
  if (count > limits.max_buttons) addFieldError(fields, "buttons", `has ${count} buttons; a ${key} message takes at most ${limits.max_buttons}`);
  buttons.forEach((row, i) => {
    if (row.length > limits.buttons_per_row)
      addFieldError(fields, `buttons.${i}`, `has ${row.length} buttons; a ${key} row takes at most ${limits.buttons_per_row}`);
  });
}

/**
 * Refuses (422 naming the field) a message one of `connectors` cannot carry: the rendered text
 * over its max_length, too many buttons, or a button to a plan the project does not have.
 */
export async function checkMessage(
  ctx: DomainContext,
  registry: Pick<ConnectorRegistry, "packages">,
  projectId: string,
  projectHandle: string,
  message: BroadcastMessage,
  connectors: readonly string[],
): Promise<void> {
  const fields = emptyFieldErrors();
  const planIds = message.buttons.flat().flatMap((b) => (b.target.startsWith("plan:") ? [b.target.slice(5)] : []));
  const known = new Set(
    planIds.length ? ((await plansTable.rows(ctx).where({ project_id: projectId }).whereIn("id", planIds).pluck("id")) as string[]) : [],
  );
  message.buttons.forEach((row, i) =>
    row.forEach((b, j) => {
      if (b.target.startsWith("plan:") && !known.has(b.target.slice(5)))
        addFieldError(fields, `buttons.${i}.${j}.target`, "names no plan of the project");
    }),
  );
  const length = renderBroadcast(message, projectHandle).length;
  for (const key of connectors) {
    const limits = registry.packages.get(key)?.manifest.messaging;
    if (!limits) continue;
    if (length > limits.max_length)
      addFieldError(fields, "text", `is ${length} characters with the image and button lines; a ${key} message allows ${limits.max_length}`);
    checkButtons(fields, message.buttons, key, limits);
  }
  if (Object.keys(fields).length) throw validationFailed(fields);
}
