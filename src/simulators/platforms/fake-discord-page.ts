// The simulated Discord as a person sees it, on the fake platform's own loopback address
// (fake-discord.ts). GET /oauth2/authorize is Discord's consent screen for the shared application:
// with the `bot` scope a creator names the server the bot joins (the install), with `identify` a
// member says who they are (their Discord user id and name); "Authorize" answers the application's
// redirect_uri with a single-use code and the state, as Discord does. GET /_sim/discord shows each
// server the bot is in, its roles and members (with the roles they hold), a form to use the slash
// commands the bot registered there as a Discord user (the interaction goes, signed as Discord signs
// it, to the deployment's interactions endpoint, and its answer is shown), and the bot's direct
// messages to each user. A developer tool served on loopback only, with no script and a CSP.
import type { IncomingMessage, ServerResponse } from "node:http";
import { escape } from "html-escaper";
import { foreignForm, linkified, pageHeaders, simPage } from "./sim-page.ts";
import type { DiscordPeople } from "./fake-discord-people.ts";
import { stableId } from "./fake-discord-roles.ts";
import type { SentInteraction, SimulatedInteraction } from "./fake-discord-interactions.ts";

/** What the page reads from the simulated Discord. */
export interface DiscordPageSource {
  clientId(): string;
  people: DiscordPeople;
  /** The servers the bot was added to, by id, with their names. */
  guilds(): Map<string, string>;
  /** A new server the bot joins through an install's code. */
  addAuthorization(code: string, guild: { id: string; name: string }): void;
  /** The server's roles in Discord's shape. */
  roles(guild: string): { id: string; name: string; position: number }[];
  /** Where the application's interactions go (the developer portal's Interactions Endpoint URL); null when none was given. */
  interactionsUrl: string | null;
  /** The slash commands the bot registered in the server. */
  commands(guild: string): { name?: unknown; options?: unknown }[];
  sendInteraction(url: string, input: SimulatedInteraction): Promise<SentInteraction>;
  /** A deferred answer's follow-up, once the bot wrote it. */
  answerOf(token: string): string | null;
}

/** A slash command used on the page, and what the bot answered. */
interface UsedCommand {
  guild: string;
  user: string;
  line: string;
  token: string;
  answer: string;
}

const SCOPES = /^[a-z.]+( [a-z.]+)*$/;

function sendHtml(res: ServerResponse, status: number, body: string, title = "Simulated Discord", formTargets: string[] = []) {
  res.writeHead(status, pageHeaders(formTargets)).end(simPage(title, body));
}

/** The query of an authorize request, checked as Discord checks it; a string is the refusal. */
function authorizeRequest(source: DiscordPageSource, params: Record<string, unknown>) {
  const scope = String(params.scope ?? "");
  const redirectUri = String(params.redirect_uri ?? "");
  if (params.client_id !== source.clientId()) return "Unknown application: client_id is not this application's.";
  if (params.response_type !== "code") return "Only response_type=code is supported.";
  if (!SCOPES.test(scope)) return "The scope is missing or malformed.";
  if (!/^https?:\/\/[^\s]+$/.test(redirectUri)) return "redirect_uri is missing or not an http(s) address.";
  const scopes = scope.split(" ");
  return { scopes, redirectUri, state: typeof params.state === "string" ? params.state : null, bot: scopes.includes("bot") };
}

const hidden = (params: Record<string, unknown>, names: string[]) =>
  names
    .filter((n) => typeof params[n] === "string")
    .map((n) => `<input type="hidden" name="${n}" value="${escape(String(params[n]))}">`)
    .join("");

function consentPage(source: DiscordPageSource, params: Record<string, unknown>, bot: boolean, scopes: string[]): string {
  const carried = hidden(params, ["client_id", "redirect_uri", "response_type", "scope", "state", "permissions"]);
  const known = source.people.users();
  const guilds = [...source.guilds()];
  const who = bot
    ? `<label>Server name<input name="guild_name" required maxlength="100" value="My community"></label>
${guilds.length ? `<p class="hint">Servers the bot is already in: ${guilds.map(([id, name]) => `${escape(name)} (${id})`).join(", ")}. The same name adds it to the same server again.</p>` : ""}`
    : `<label>Your Discord user id <span class="hint">(optional)</span><input name="user_id" inputmode="numeric" pattern="[0-9]{17,20}" maxlength="20"></label>
<label>Your name<input name="user_name" required maxlength="32" autocomplete="off"></label>
${known.length ? `<p class="hint">Known users: ${known.map((u) => `${escape(u.global_name ?? u.username)} (${u.id})`).join(", ")}.</p>` : ""}`;
  return `<h1>Authorize SubBridge</h1>
<p class="hint">The application asks to: ${scopes.map((s) => `<strong>${escape(s)}</strong>`).join(", ")}${bot ? ` with permissions ${escape(String(params.permissions ?? "0"))}` : ""}.</p>
<section><form method="post" action="/oauth2/authorize">${carried}<div class="grid">${who}</div>
<p><button>Authorize</button></p></form></section>
<p class="hint">This is the simulated Discord: nothing here reaches the real Discord.</p>`;
}

/** The options a line of text fills, in the command's order: the last option takes the rest of the line. */
function optionsOf(command: { options?: unknown }, text: string): Record<string, string | number> {
  const names = Array.isArray(command.options)
    ? command.options.map((o: { name?: unknown; type?: unknown }) => ({ name: String(o.name), integer: o.type === 4 }))
    : [];
  const words = text.trim().split(/\s+/).filter(Boolean);
  const options: Record<string, string | number> = {};
  names.forEach((option, i) => {
    const value = i === names.length - 1 ? words.slice(i).join(" ") : words[i];
    if (value) options[option.name] = option.integer && /^[0-9]+$/.test(value) ? Number(value) : value;
  });
  return options;
}

export function discordPage(source: DiscordPageSource) {
  const used: UsedCommand[] = [];

  function commandForm(guild: string): string {
    const commands = source.commands(guild).filter((c) => typeof c.name === "string");
    if (!source.interactionsUrl) return `<p class="hint">No interactions endpoint is set, so slash commands cannot be sent from here.</p>`;
    if (!commands.length) return `<p class="hint">The bot registered no slash command in this server yet.</p>`;
    const log = used.filter((u) => u.guild === guild);
    return `<h3>Use a slash command</h3>
<form method="post" action="/_sim/discord/command"><input type="hidden" name="guild" value="${guild}"><div class="grid">
<label>User id<input name="user_id" inputmode="numeric" required pattern="[0-9]{17,20}" maxlength="20"></label>
<label>Name<input name="user_name" required maxlength="32"></label>
<label>Command<select name="command">${commands.map((c) => `<option value="${escape(String(c.name))}">/${escape(String(c.name))}</option>`).join("")}</select></label>
<label>Options<input name="text" maxlength="1000" placeholder="a code, a message…"></label>
<button>Send</button></div></form>
${log.length ? `<ol>${log.map((u) => `<li><span class="from">${escape(u.user)}</span>${escape(u.line)}<br><span class="text">${linkified(source.answerOf(u.token) ?? u.answer)}</span></li>`).join("")}</ol>` : ""}`;
  }

  async function useCommand(params: Record<string, unknown>, res: ServerResponse) {
    const guild = String(params.guild ?? "");
    const user = { id: String(params.user_id ?? ""), name: String(params.user_name ?? "").trim() };
    const command = source.commands(guild).find((c) => c.name === params.command);
    if (!source.interactionsUrl || !source.guilds().has(guild) || !command || !/^[0-9]{17,20}$/.test(user.id) || !user.name)
      return sendHtml(res, 400, `<p class="notice">Choose a server's command and give a user id (17 to 20 digits) and a name.</p>${overview()}`);
    const text = String(params.text ?? "");
    const sent = await source.sendInteraction(source.interactionsUrl, {
      command: String(command.name),
      options: optionsOf(command, text),
      guild_id: guild,
      user: { id: user.id, username: user.name.toLowerCase(), global_name: user.name },
    });
    const body = sent.body as { type?: number; data?: { content?: string } } | null;
    const answer =
      sent.status !== 200 ? `The endpoint answered ${sent.status}.` : body?.type === 5 ? "(thinking…)" : String(body?.data?.content ?? "(no answer)");
    used.push({ guild, user: user.name, line: ` used /${String(command.name)} ${text}`.trimEnd(), token: sent.token, answer });
    res.writeHead(303, { location: "/_sim/discord" }).end();
  }

  function answer(params: Record<string, unknown>, res: ServerResponse) {
    const request = authorizeRequest(source, params);
    if (typeof request === "string") return sendHtml(res, 400, `<h1>Authorization failed</h1><p class="notice">${escape(request)}</p>`);
    const target = new URL(request.redirectUri);
    let code: string;
    if (request.bot) {
      const name = String(params.guild_name ?? "").trim() || "My community";
      const guild = { id: stableId(`guild:${name}`), name };
      code = `sim-install-${guild.id}-${Date.now().toString(36)}`;
      source.addAuthorization(code, guild);
      target.searchParams.set("guild_id", guild.id);
      target.searchParams.set("permissions", String(params.permissions ?? "0"));
    } else {
      const name = String(params.user_name ?? "").trim();
      const id = String(params.user_id ?? "").trim();
      if (!name || (id && !/^[0-9]{17,20}$/.test(id)))
        return sendHtml(
          res,
          400,
          consentPage(source, params, false, request.scopes).replace(
            "<section>",
            `<p class="notice">Give your name, and an id of 17 to 20 digits or none.</p><section>`,
          ),
          "Authorize – Simulated Discord",
          [target.origin],
        );
      code = source.people.authorize({ id: id || null, name }, request.scopes, request.redirectUri);
    }
    target.searchParams.set("code", code);
    if (request.state !== null) target.searchParams.set("state", request.state);
    res.writeHead(302, { location: target.toString(), "cache-control": "no-store" }).end();
  }

  function overview(): string {
    const servers = [...source.guilds()].map(([id, name]) => {
      const roles = source.roles(id);
      const roleName = (role: string) => roles.find((r) => r.id === role)?.name ?? `role-${role}`;
      const members = source.people.list(id);
      return `<section aria-labelledby="g-${id}"><h2 id="g-${id}">${escape(name)} <span class="hint">(${id})</span></h2>
<p class="hint">Roles, highest first: ${[...roles]
        .sort((a, b) => b.position - a.position)
        .map((r) => `${escape(r.name)} (${r.id})`)
        .join(", ")}</p>
${commandForm(id)}
<h3>Members</h3><ol>${
        members
          .map(
            (m) =>
              `<li><span class="from">${escape(m.user.global_name ?? m.user.username)}</span> (${m.user.id}): ${
                m.roles.length ? m.roles.map((r) => `<span class="state member">${escape(roleName(r))}</span>`).join(", ") : "no role"
              }</li>`,
          )
          .join("") || "<li>No member yet.</li>"
      }</ol></section>`;
    });
    const dms = source.people.users().map((u) => {
      const messages = source.people.dms(u.id);
      return messages.length
        ? `<h3>To ${escape(u.global_name ?? u.username)} (${u.id})</h3><ol>${messages.map((m) => `<li class="bot"><span class="from">SubBridge</span><span class="text">${linkified(m.content)}</span></li>`).join("")}</ol>`
        : "";
    });
    return `<h1>Simulated Discord</h1>
<p class="hint">The servers the SubBridge bot was added to, their roles and members, and the bot's direct messages. Nothing here reaches the real Discord.</p>
${servers.join("") || "<section><p>The bot is in no server yet: connect Discord to a project from the dashboard.</p></section>"}
<section><h2>Direct messages</h2>${dms.join("") || "<p>The bot has sent no direct message yet.</p>"}</section>`;
  }

  /** Serves the page's routes; false for any other request. */
  async function handle(req: IncomingMessage, path: string, params: Record<string, unknown>, res: ServerResponse): Promise<boolean> {
    if (path === "/_sim/discord/command" && req.method === "POST") {
      if (foreignForm(req.headers)) sendHtml(res, 403, `<p class="notice">Forms are taken from this page only.</p>`);
      else await useCommand(params, res);
      return true;
    }
    if (path === "/oauth2/authorize" && req.method === "GET") {
      const request = authorizeRequest(source, params);
      if (typeof request === "string") sendHtml(res, 400, `<h1>Authorization failed</h1><p class="notice">${escape(request)}</p>`);
      // "Authorize" answers with a redirect to the application, which the page's CSP must allow.
      else
        sendHtml(res, 200, consentPage(source, params, request.bot, request.scopes), "Authorize – Simulated Discord", [
          new URL(request.redirectUri).origin,
        ]);
      return true;
    }
    if (path === "/oauth2/authorize" && req.method === "POST") {
      if (foreignForm(req.headers)) sendHtml(res, 403, `<p class="notice">Forms are taken from this page only.</p>`);
      else answer(params, res);
      return true;
    }
    if (path === "/_sim/discord" && req.method === "GET") {
      sendHtml(res, 200, overview());
      return true;
    }
    return false;
  }

  return { handle };
}
