// The chats a project's bot administers (list_connector_chats): what the setup offers to gate.
import type { SubBridgeClient } from "@subbridge/sdk";

export async function listChats(sb: SubBridgeClient, project: string, connector: string) {
  return (await sb.connectorChats.list(project, connector, { per_page: 100 })).data;
}
