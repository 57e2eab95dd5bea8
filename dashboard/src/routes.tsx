// The dashboard's pages and its one navigation (TanStack Router, code-based routes).
import { useEffect } from "react";
import { createRootRoute, createRoute, createRouter, Link, Outlet, useNavigate, useParams } from "@tanstack/react-router";
import { useQuery } from "@tanstack/react-query";
import { useDashboard } from "./context";
import { SetupPage } from "./pages/setup";
import { OverviewPage } from "./pages/overview";
import { MemberPage, MembersPage } from "./pages/members";
import { PlansPage, PlacesPage, CouponsPage, AccessPage, SharePage } from "./pages/catalog";
import { ConnectorsPage } from "./pages/connectors";
import { DiscordCallbackPage, DISCORD_CALLBACK_PATH } from "./pages/discord-install";
import { PaymentsPage, SupportPage, ActivityPage } from "./pages/business";
import { TokensPage, WebhooksPage, TeamPage, AlertsPage, BillingPage } from "./pages/team";
import { ProjectSettingsPage } from "./pages/settings";
import { RecoveryPage } from "./pages/recovery";
import { RolesPage } from "./pages/roles";
import { BroadcastsPage } from "./pages/broadcasts";

function useProjects() {
  const { sb } = useDashboard();
  return useQuery({ queryKey: ["projects"], queryFn: () => sb.projects.list({ per_page: 100 }) });
}

const PROJECT_LINKS = [
  ["", "Overview"],
  ["/setup", "Setup"],
  ["/members", "Members"],
  ["/plans", "Plans"],
  ["/places", "Places"],
  ["/payments", "Payments"],
  ["/support", "Support"],
  ["/broadcasts", "Broadcasts"],
  ["/coupons", "Coupons"],
  ["/access", "Access codes"],
  ["/connectors", "Connectors"],
  ["/recovery", "Recovery"],
  ["/share", "Share"],
  ["/settings", "Settings"],
] as const;

const TEAM_LINKS = [
  ["/activity", "Activity"],
  ["/webhooks", "Webhooks"],
  ["/team", "Team"],
  ["/roles", "Roles"],
  ["/tokens", "API tokens"],
  ["/alerts", "Alerts"],
  ["/billing", "Billing"],
] as const;

function Layout() {
  const { config, sb } = useDashboard();
  const projects = useProjects();
  const team = useQuery({ queryKey: ["team"], queryFn: () => sb.teams.retrieveCurrent() });
  const teams = useQuery({ queryKey: ["teams"], queryFn: () => sb.teams.list({ per_page: 100 }) });
  const params = useParams({ strict: false }) as { project?: string };
  const navigate = useNavigate();
  const current = params.project ?? projects.data?.data[0]?.id;
  useEffect(() => {
    const title = document.querySelector("main h1")?.textContent;
    document.title = title ? `${title} · SubBridge dashboard` : "SubBridge dashboard";
  });
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <a className="brand" href="/">
          SubBridge
        </a>
        <span className="team-name">{team.data?.data.name ?? ""}</span>
        {teams.data && teams.data.data.length > 1 ? (
          // The team is the sign-in's: the account's switcher picks another, and the dashboard follows when opened again.
          <a href={config.authUrl}>Switch team</a>
        ) : null}
        {projects.data && projects.data.data.length > 0 ? (
          <label className="project-switcher">
            <span>Project</span>
            <select value={current ?? ""} onChange={(e) => void navigate({ to: "/projects/$project", params: { project: e.target.value } })}>
              {projects.data.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <a className="account" href={config.authUrl}>
          Account
        </a>
      </header>
      <div className="frame">
        <nav aria-label="Dashboard" className="side">
          {current ? (
            <ul>
              {PROJECT_LINKS.map(([suffix, label]) => {
                const href = `/projects/${current}${suffix}`;
                return (
                  <li key={label}>
                    <Link to={href} activeOptions={{ exact: true }}>
                      {label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          ) : null}
          <ul>
            <li>
              <Link to="/setup" activeOptions={{ exact: true }}>
                Create project
              </Link>
            </li>
            {TEAM_LINKS.map(([href, label]) => (
              <li key={label}>
                <Link to={href} activeOptions={{ exact: true }}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}

function Home() {
  const projects = useProjects();
  const navigate = useNavigate();
  useEffect(() => {
    if (!projects.data) return;
    const first = projects.data.data[0];
    if (first) void navigate({ to: "/projects/$project", params: { project: first.id }, replace: true });
    else void navigate({ to: "/setup", replace: true });
  }, [projects.data, navigate]);
  return <h1>Loading your projects…</h1>;
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        This address is not a page of the dashboard. <a href="/">Go to the overview</a>.
      </p>
    </>
  );
}

export function createDashboardRouter() {
  const root = createRootRoute({ component: Layout, notFoundComponent: NotFound });
  const route = (path: string, component: () => React.ReactNode) => createRoute({ getParentRoute: () => root, path, component });
  const tree = root.addChildren([
    route("/", Home),
    route("/setup", SetupPage),
    route("/projects/$project", OverviewPage),
    route("/projects/$project/setup", SetupPage),
    route("/projects/$project/members", MembersPage),
    route("/projects/$project/members/$member", MemberPage),
    route("/projects/$project/plans", PlansPage),
    route("/projects/$project/places", PlacesPage),
    route("/projects/$project/payments", PaymentsPage),
    route("/projects/$project/support", SupportPage),
    route("/projects/$project/broadcasts", BroadcastsPage),
    route("/projects/$project/coupons", CouponsPage),
    route("/projects/$project/access", AccessPage),
    route("/projects/$project/connectors", ConnectorsPage),
    route(DISCORD_CALLBACK_PATH, DiscordCallbackPage),
    route("/projects/$project/recovery", RecoveryPage),
    route("/projects/$project/share", SharePage),
    route("/projects/$project/settings", ProjectSettingsPage),
    route("/activity", ActivityPage),
    route("/webhooks", WebhooksPage),
    route("/team", TeamPage),
    route("/roles", RolesPage),
    route("/tokens", TokensPage),
    route("/alerts", AlertsPage),
    route("/billing", BillingPage),
  ]);
  return createRouter({ routeTree: tree, defaultPreload: false });
}
