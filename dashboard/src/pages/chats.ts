// The chats a project's bot administers (list_connector_chats): what the setup offers to gate.
import type { SubBridgeClient } from "@subbridge/sdk";

export interface BotChat {
  chat_id: string;
  title: string;
  type: string;
  resource_id: string | null;
}

export async function listChats(sb: SubBridgeClient, project: string, connector: string): Promise<BotChat[]> {
  const page = await (sb.GET as unknown as (path: string, init: unknown) => Promise<{ data: BotChat[] }>)(
    "/v1/projects/{project}/connectors/{connector}/chats",
    {
      params: { path: { project, connector }, query: { per_page: 100 } },
    },
  );
  return page.data;
}
