// The types of the tenancy matrix (test/tenancy/matrix.test.ts) and of the fixtures each area
// supplies in test/modules/<area>/tenancy-fixtures.ts. An area is an operation's first tag as an
// MCP toolset names it ("Tokens" -> tokens); the loader (./loader.ts) finds the files itself.
import type { OperationId, OperationIO, operationTable } from "../../generated/operations.ts";
import type { ApiClient } from "../helpers/http.ts";
import type { TestCreator } from "../helpers/fixtures.ts";

type Table = typeof operationTable;

/** Operations that take a credential, so tenancy applies (`!op.public`). */
export type AuthenticatedOperationId = { [Id in OperationId]: Table[Id]["public"] extends true ? never : Id }[OperationId];

/** The names of an operation's path parameters ("token_id" for DELETE /v1/tokens/{token_id}). */
export type PathParamName<Id extends OperationId> = Table[Id]["pathParams"][number];

/** Path parameter values, by name: what a path fixture returns and the MCP tool takes as arguments. */
export type PathParams<P extends string = string> = Record<P, string>;

/** What a path fixture works with: the team that owns the resource. */
export interface FixtureScope {
  /** The owning team's creator (2 projects, a full token). */
  owner: TestCreator;
  /** REST client authenticated with the owner's full token, for creating resources through the API. */
  rest: ApiClient;
}

/**
 * For an operation with path parameters: how to make a resource of a team, and how to tell that
 * it survived. The matrix sends its ids from the other team, and (when `outside` is a function)
 * from a token of the same team restricted to a project allow-list the resource lies outside.
 */
export interface PathFixture<P extends string = string> {
  /**
   * Creates a resource of `scope.owner`'s team and returns its path parameters. With `within`, the
   * resource must lie inside that project allow-list (a token restricted to it can reach it).
   */
  create(scope: FixtureScope, within?: readonly string[]): Promise<PathParams<P>>;
  /**
   * Creates resources of the owner's team that a token restricted to `allowList` must not reach
   * (one or more shapes of "outside"), and returns their path parameters. `null` when the area's
   * resources are not narrowed by a project allow-list at all: say why in a comment.
   */
  outside: ((scope: FixtureScope, allowList: readonly string[]) => Promise<readonly PathParams<P>[]>) | null;
  /** Whether the resource still exists (a refused destructive call must leave it alone). */
  exists(scope: FixtureScope, params: PathParams<P>): Promise<boolean>;
  /**
   * For a resource the owner's full token cannot act on as `create` made it (a personal team cannot
   * be deleted): one it can act on, and the token to use. The positive control uses it.
   */
  controlTarget?(scope: FixtureScope): Promise<{ params: PathParams<P>; token: string }>;
  /**
   * For a destructive operation on a project itself: the resource inside an allow-list is the
   * allow-list's own project, and deleting P1 would take it from every later test. The control
   * then uses this resource instead, with a token restricted to the allow-list returned (naming it).
   */
  insideControl?(scope: FixtureScope): Promise<{ params: PathParams<P>; allowList: readonly string[] }>;
  /** A valid query for the call, when the operation requires one (so validation cannot answer first). */
  query?(params: PathParams<P>): Record<string, unknown>;
  /** A valid body for the call, when the operation takes one (so validation cannot answer first). */
  body?(params: PathParams<P>): unknown;
}

export type Transport = "rest" | "mcp";

/** One call's outcome, the same shape over REST and MCP. */
export type CallResult =
  | { ok: true; transport: Transport; request: string; status: number | null; body: any }
  | { ok: false; transport: Transport; request: string; status: number | null; code: string | undefined; body: any };

export interface CallInput<Id extends OperationId> {
  path?: PathParams<PathParamName<Id>>;
  query?: Partial<OperationIO[Id]["query"]>;
  body?: OperationIO[Id]["body"];
}

/**
 * Calls operations with one credential, over REST (path, query string, JSON body) or MCP (one
 * tool call whose arguments are the path, query and body fields), answering a CallResult.
 */
export interface Caller {
  readonly transport: Transport;
  /** Who calls, for failure messages ("team B's full token"). */
  readonly label: string;
  call<Id extends OperationId>(id: Id, input?: CallInput<Id>): Promise<CallResult>;
}

/** What a probe works with; the callers speak the transport the probe runs on. */
export interface ProbeContext {
  transport: Transport;
  /** The team whose rows must stay invisible (2 projects, a full token). */
  teamA: TestCreator;
  /** The other team (2 projects, a full token). */
  teamB: TestCreator;
  /** Team A's full token. */
  a: Caller;
  /** Team B's full token. */
  b: Caller;
  /** A token of `creator` with every grantable ability, restricted to `projectIds`. */
  restricted(creator: TestCreator, projectIds: readonly string[]): Promise<Caller>;
  /** A caller with any token (e.g. one a probe minted). */
  as(token: string, label: string): Promise<Caller>;
}

/**
 * For an operation without path parameters: a probe that shows the other team's rows never
 * leak (a list, a query naming an id, a body naming a project) and that a project allow-list
 * narrows what it reaches. It runs over REST and, when the operation is an MCP tool, over MCP.
 */
export interface ProbeFixture {
  probe(t: ProbeContext): Promise<void>;
  /** Set (to the reason) when the probe cannot run over MCP though the operation is a tool. */
  restOnly?: string;
}

/** The fixture an operation needs: a path fixture when it has path parameters, a probe otherwise. */
export type FixtureFor<Id extends OperationId> = [PathParamName<Id>] extends [never] ? ProbeFixture : PathFixture<PathParamName<Id>>;

/**
 * What test/modules/<area>/tenancy-fixtures.ts exports as `tenancyFixtures`: a typo in an
 * operation id, a public operation, a probe for an operation with path ids, or a misnamed path
 * parameter fails tsc.
 */
export type AreaFixtures = { [Id in AuthenticatedOperationId]?: FixtureFor<Id> };

export type AnyFixture = PathFixture | ProbeFixture;
