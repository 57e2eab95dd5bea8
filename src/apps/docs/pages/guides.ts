// The guides (REST API, MCP server, Discord, Telegram, broadcasts, connector packages, webhooks, recovery): Markdown files beside this module with the
// deployment's addresses filled in, and the few parts that come from the code (the toolsets, the
// retry ladder, the MCP install links, the Telegram bot's commands) generated into them, so a guide cannot disagree with what
// the server does.
import type { MarkdownPage } from "../../site/pages/markdown-routes.ts";
import { readRepositoryText, readGeneratedJson } from "../../../repository-files.ts";
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from "../../../modules/webhooks/ladder.ts";
import { withAddresses, type DocsAddresses } from "./addresses.ts";
import { cursorInstallMarkdown, vscodeInstallMarkdown } from "./mcp-install.ts";
import type { ConnectorManifest } from "../../../../generated/connector-manifest.d.ts";
import { CAPABILITY_MEANINGS, MANAGEMENT_COMMAND_MEANINGS } from "../../../modules/connectors/claims.ts";
import { CREATOR_COMMANDS, MEMBER_COMMANDS } from "../../../modules/connectors/bot/bot-commands.ts";

interface ToolsetsFile {
  toolsets: { name: string; description: string; default?: boolean; tools: string[] }[];
}

function toolsetsTable(): string {
  const { toolsets } = readGeneratedJson<ToolsetsFile>("mcp-tools.json");
  const rows = toolsets.map((set) => `| \`${set.name}\` | ${set.default ? "yes" : ""} | ${set.tools.length} | ${set.description} |`);
  return ["| Toolset | Default | Tools | What it covers |", "|---|---|---|---|", ...rows].join("\n");
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} seconds`;
  if (seconds < 3600) return `${seconds / 60} minutes`;
  return seconds === 3600 ? "1 hour" : `${seconds / 3600} hours`;
}

/** Attempt n+1 follows the n-th failure after the n-th delay; the last attempt has no successor. */
function retryLadder(): string {
  const rows = RETRY_DELAYS_SECONDS.slice(0, MAX_ATTEMPTS - 1).map((delay, i) => `| ${i + 2} | ${duration(delay)} after attempt ${i + 1} failed |`);
  return ["| Attempt | When |", "|---|---|", "| 1 | as soon as the event happens |", ...rows].join("\n");
}

/** A package's install steps as the dashboard shows them: numbered, `:app` named, `:button` the form's button, texts linked. */
function installSteps(key: string, button: string): string {
  const manifest = JSON.parse(readRepositoryText(`connectors/${key}/connector.json`)) as ConnectorManifest;
  const steps = (manifest.install.fields ?? []).flatMap((field) =>
    (field.steps ?? []).map((step) =>
      Object.entries(field.links ?? {}).reduce(
        (text, [linked, url]) => text.replace(linked, `[${linked}](${url})`),
        step.replaceAll(":app", "SubBridge").replaceAll(":button", `**${button}**`),
      ),
    ),
  );
  return steps.map((step, i) => `${i + 1}. ${step}`).join("\n");
}

function capabilityObligations(): string {
  const rows = Object.entries(CAPABILITY_MEANINGS).map(([name, m]) => `| \`${name}\` | ${m.says} | ${m.obliges} |`);
  return ["| Capability | What creators read | What it obliges |", "|---|---|---|", ...rows].join("\n");
}

function managementCommands(): string {
  const rows = Object.entries(MANAGEMENT_COMMAND_MEANINGS).map(([id, says]) => `| \`${id}\` | ${says} |`);
  return ["| Command id | What the creator gets |", "|---|---|", ...rows].join("\n");
}

/** The Telegram bot's commands, from the list the bot answers and advertises (bot-commands.ts). */
function telegramCommands(team: boolean): string {
  if (!team) return ["| Command | What it does |", "|---|---|", ...MEMBER_COMMANDS.map((c) => `| \`/${c.command}\` | ${c.description} |`)].join("\n");
  const rows = CREATOR_COMMANDS.map(
    (c) =>
      `| \`/${c.name}\`${c.id ? ` (\`/${c.id}\`)` : ""} | ${c.help.replace(/^Team: /, "")}${c.usage ? `: \`${c.usage}\`` : ""} | \`${c.ability}\` |`,
  );
  return ["| Command | What it does | Ability |", "|---|---|---|", ...rows].join("\n");
}

const GUIDES = [
  {
    path: "/guides/rest-api",
    file: "rest-api.md",
    title: "REST API guide",
    description: "Authentication, idempotency, errors, pagination, rate limits and versioning of the SubBridge REST API.",
  },
  {
    path: "/guides/mcp",
    file: "mcp.md",
    title: "MCP server guide",
    description: "Connecting Claude, Cursor, VS Code and Windsurf to SubBridge's MCP server: toolsets, read-only mode and OAuth.",
  },
  {
    path: "/guides/discord",
    file: "discord.md",
    title: "Discord guide",
    description:
      "Running SubBridge on Discord: the application's settings, adding the bot to a server, members' sign-in, slash commands and rate limits.",
  },
  {
    path: "/guides/connectors",
    file: "connectors.md",
    title: "Connector packages guide",
    description: "What each claim of a connector manifest (capabilities, commands, settings, recovery) obliges a package to do.",
  },
  {
    path: "/guides/broadcasts",
    file: "broadcasts.md",
    title: "Broadcasts guide",
    description: "Messaging a segment of a project's members through the connectors' bots: segments, limits, test sends, scheduling, opt-out.",
  },
  {
    path: "/guides/telegram",
    file: "telegram.md",
    title: "Telegram guide",
    description: "Running SubBridge with your own Telegram bot: connecting it, linking your account, the bot's member and team commands.",
  },
  {
    path: "/guides/webhooks",
    file: "webhooks.md",
    title: "Webhooks guide",
    description: "Verifying SB-Signature and the RFC 9421 signature of SubBridge webhooks, retries and de-duplication.",
  },
  {
    path: "/guides/recovery",
    file: "recovery.md",
    title: "Recovery guide",
    description: "Recovery probes, a standby bot that takes over when the project's bot is lost, and standby places for lost chats.",
  },
] as const;

export function guidePages(a: DocsAddresses): MarkdownPage[] {
  const fragments: Record<string, () => string> = {
    toolsets: toolsetsTable,
    retry_ladder: retryLadder,
    install_vscode: () => vscodeInstallMarkdown(a.mcpUrl),
    install_cursor: () => cursorInstallMarkdown(a.mcpUrl),
    capability_obligations: capabilityObligations,
    telegram_install_steps: () => installSteps("telegram", "Connect Telegram"),
    discord_install_steps: () => installSteps("discord", "Add to Discord"),
    management_commands: managementCommands,
    member_commands: () => telegramCommands(false),
    creator_commands: () => telegramCommands(true),
  };
  return GUIDES.map((guide) => {
    const text = withAddresses(readRepositoryText(`src/apps/docs/pages/guides/${guide.file}`), a);
    const markdown = text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
      const fragment = fragments[name];
      if (!fragment) throw new Error(`guide ${guide.file} names an unknown fragment {{${name}}}`);
      return fragment();
    });
    return { path: guide.path, title: guide.title, description: guide.description, markdown };
  });
}
