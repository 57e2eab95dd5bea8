// Boot: read /config.json, finish a sign-in coming back on /callback (or start one), then render.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { loadConfig } from "./config";
import { accessToken, finishSignIn, startSignIn } from "./auth";
import { dashboardClient } from "./api";
import { DashboardContext } from "./context";
import { createDashboardRouter } from "./routes";
import "./styles.css";

const root = createRoot(document.getElementById("root")!);

function fatal(message: string, config?: { authUrl: string }) {
  root.render(
    <main className="boot-error">
      <h1>The dashboard could not open</h1>
      <p role="alert">{message}</p>
      <p>
        <a href="/">Try again</a>
        {config ? (
          <>
            {" "}
            or go to <a href={config.authUrl}>your account</a>
          </>
        ) : null}
        .
      </p>
    </main>,
  );
}

async function boot() {
  const config = await loadConfig();
  if (location.pathname === "/callback") {
    try {
      const returnTo = await finishSignIn(config);
      history.replaceState(null, "", returnTo);
    } catch (err) {
      fatal(err instanceof Error ? err.message : String(err), config);
      return;
    }
  } else {
    // No token in memory (a first visit or a reload): the host signs in again without a page while its session lives.
    await accessToken(config).catch(() => startSignIn(config));
  }
  const sb = dashboardClient(config);
  const queries = new QueryClient({ defaultOptions: { queries: { staleTime: 10_000, retry: 1, refetchOnWindowFocus: true } } });
  const router = createDashboardRouter();
  root.render(
    <StrictMode>
      <DashboardContext.Provider value={{ config, sb }}>
        <QueryClientProvider client={queries}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </DashboardContext.Provider>
    </StrictMode>,
  );
}

boot().catch((err: unknown) => fatal(err instanceof Error ? err.message : String(err)));
