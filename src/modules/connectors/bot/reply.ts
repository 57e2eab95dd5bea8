// Sending the bot's answer to a /start after its transaction committed: the text, and for a plan
// sold in Telegram Stars the invoice (an invoice link for a recurring plan, an invoice in the chat
// for a lifetime one), made only now because no platform call runs inside a transaction.
import type { Logger } from "pino";
import { starsProvider } from "../../payments/stars/provider.ts";
import type { ConnectorEnvironment } from "../environment.ts";
import type { InstallationRow } from "../tables.ts";
import { installationSession } from "./session.ts";
import { planPrice, type StartReply } from "./start.ts";
import { ENGLISH_TEXTS, type BotTexts } from "./texts.ts";

/** What the bot says when the invoice could not be made (the checkout stays open and harmless). */
export const CHECKOUT_FAILED = "The payment could not be prepared just now: open the plan's link again in a moment.";

/** Sends `reply` to `chat`; throws when the platform refuses the message itself. */
export async function deliverStartReply(
  env: Pick<ConnectorEnvironment, "platforms" | "appKey">,
  installation: InstallationRow,
  chat: string,
  reply: StartReply,
  logger: Logger,
  { t }: BotTexts = ENGLISH_TEXTS,
): Promise<void> {
  const session = installationSession(env, installation);
  const { outcome } = reply;
  if (outcome.kind !== "checkout") return session.sendMessage(chat, reply.text);
  const provider = starsProvider(async () => session);
  const method = { paymentMethodId: outcome.method.id, account: installation.id, mode: outcome.method.mode };
  const request = { reference: outcome.checkout.id, planName: outcome.plan.name, price: planPrice(outcome.plan) };
  try {
    if (outcome.plan.billing_cycle === "lifetime") {
      await session.sendMessage(chat, `${reply.text}\n${t("Pay the invoice below with Telegram Stars.")}`);
      await provider.startCheckout(method, { ...request, chatId: chat });
      return;
    }
    const { url } = await provider.startCheckout(method, request);
    await session.sendMessage(chat, `${reply.text}\n${t("Pay with Telegram Stars: {url}", { url: String(url) })}`);
  } catch (err) {
    logger.warn({ installation_id: installation.id, checkout_id: outcome.checkout.id, err }, "stars invoice for a plan link failed");
    await session.sendMessage(chat, t(CHECKOUT_FAILED));
  }
}
