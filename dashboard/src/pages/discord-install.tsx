// Connecting a Discord server from the dashboard: "Add to Discord" opens the catalog card's
// authorize_url with this dashboard's callback as redirect_uri and a random state (kept in
// sessionStorage with the project, so the answer is bound to this tab's attempt); the callback page
// checks the state and installs with the code Discord sent back. After install the creator picks the
// server's roles and channels to gate (list_connector_chats asks Discord for them).
import { useEffect, useRef, useState } from "react";
import { Link } from "@tanstack/react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDashboard } from "../context";
import { Button, ErrorNote, Notice } from "../ui/kit";
import { listChats } from "./chats";
import type { components } from "@subbridge/sdk";
import { InstallSteps } from "../ui/install-steps";

type ConnectorCard = components["schemas"]["ConnectorCard"];

/** Where the started attempt waits for Discord's answer (this tab only). */
const PENDING_KEY = "subbridge.discord-install";
export const DISCORD_CALLBACK_PATH = "/connectors/discord/callback";

const callbackUrl = () => `${window.location.origin}${DISCORD_CALLBACK_PATH}`;

/** The consent screen for `project`: the card's URL with this dashboard's callback and a fresh state. */
function startInstall(authorizeUrl: string, project: string) {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const state = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, project }));
  const url = new URL(authorizeUrl);
  url.searchParams.set("redirect_uri", callbackUrl());
  url.searchParams.set("state", state);
  window.location.assign(url.toString());
}

export function AddToDiscord({ project, card }: { project: string; card: ConnectorCard | undefined }) {
  const authorizeUrl = card?.install?.authorize_url;
  if (!authorizeUrl) return <Notice kind="info">This deployment has no Discord application, so Discord cannot be connected here.</Notice>;
  return (
    <div className="stack">
      <p>Add the SubBridge bot to your Discord server: you choose the server on Discord and come back here.</p>
      <InstallSteps fields={card.install?.fields} button="Add to Discord" />
      <Button onPress={() => startInstall(authorizeUrl, project)}>Add to Discord</Button>
    </div>
  );
}

/** Discord's answer: the code is checked against the attempt this tab started, then installed. */
export function DiscordCallbackPage() {
  const { sb } = useDashboard();
  const params = new URLSearchParams(window.location.search);
  const [pending] = useState(() => {
    const raw = sessionStorage.getItem(PENDING_KEY);
    sessionStorage.removeItem(PENDING_KEY);
    try {
      return raw ? (JSON.parse(raw) as { state: string; project: string }) : null;
    } catch {
      return null;
    }
  });
  const code = params.get("code");
  const refusal = params.get("error");
  const matches = pending !== null && params.get("state") === pending.state;
  const install = useMutation({
    mutationFn: (input: { project: string; code: string }) =>
      sb.projectConnectors.install(input.project, "discord", { oauth: { code: input.code, redirect_uri: callbackUrl() } }),
  });
  const started = useRef(false);
  useEffect(() => {
    // One exchange per answer: a code works once.
    if (started.current || !matches || !code) return;
    started.current = true;
    install.mutate({ project: pending!.project, code });
  }, [matches, code]);
  const back = pending ? (
    <Link to="/projects/$project/connectors" params={{ project: pending.project }}>
      Continue to Connectors
    </Link>
  ) : (
    <a href="/">Go to the overview</a>
  );
  return (
    <>
      <h1>Connecting Discord</h1>
      {refusal ? (
        <Notice kind="error">Discord did not add the bot: {params.get("error_description") ?? "the request was cancelled"}.</Notice>
      ) : !matches ? (
        <Notice kind="error">
          This answer from Discord does not belong to a connection started in this tab (it may be old, or already used). Start again from the
          project's Connectors page.
        </Notice>
      ) : !code ? (
        <Notice kind="error">Discord sent no authorization code. Start again from the project's Connectors page.</Notice>
      ) : install.isSuccess ? (
        <Notice kind="success">Connected the Discord server {install.data.data.platform_account_name}.</Notice>
      ) : install.isError ? (
        <ErrorNote error={install.error} />
      ) : (
        <p>Connecting your Discord server…</p>
      )}
      <p>{back}</p>
    </>
  );
}

/** The server's roles and channels, to gate: those the bot can manage get a button; the others say why not. */
export function DiscordPlaces({ project }: { project: string }) {
  const { sb } = useDashboard();
  const client = useQueryClient();
  const places = useQuery({ queryKey: ["chats", project, "discord"], queryFn: () => listChats(sb, project, "discord") });
  const create = useMutation({
    mutationFn: (place: { chat_id: string; title: string; kind: string }) =>
      sb.resources.create(project, { connector: "discord", kind: place.kind, title: place.title, platform_ref: place.chat_id }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["chats", project, "discord"] }),
  });
  return (
    <div className="stack">
      <h3>Roles and channels to gate</h3>
      <ErrorNote error={places.error ?? create.error} />
      <ul className="choices" aria-label="The server's roles and channels">
        {(places.data ?? []).map((place) => (
          <li key={place.chat_id}>
            <span>
              <strong>{place.type === "role" ? `@${place.title}` : `#${place.title}`}</strong>{" "}
              <span className="hint">{place.manageable ? place.kind : `cannot be gated: ${place.unmanageable_reason}`}</span>
            </span>
            {place.resource_id ? (
              <span className="hint">Gated</span>
            ) : (
              <Button isDisabled={!place.manageable || create.isPending} onPress={() => create.mutate(place)}>
                Gate {place.title}
              </Button>
            )}
          </li>
        ))}
      </ul>
      <p className="hint">A role above the SubBridge role cannot be given: drag the SubBridge role above it in Server Settings → Roles.</p>
    </div>
  );
}
