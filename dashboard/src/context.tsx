// What every page reads: the configuration, the SDK client, the creator's current team.
import { createContext, useContext } from "react";
import type { SubBridgeClient } from "@subbridge/sdk";
import type { DashboardConfig } from "./config";

export interface Dashboard {
  config: DashboardConfig;
  sb: SubBridgeClient;
}

export const DashboardContext = createContext<Dashboard | null>(null);

export function useDashboard(): Dashboard {
  const value = useContext(DashboardContext);
  if (!value) throw new Error("useDashboard outside the dashboard");
  return value;
}
