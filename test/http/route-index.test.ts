// The route index answers exactly as @koa/router would: for every operation of the table and
// several paths built from it, the index runs the route the router's first match names, and it
// leaves to the router every path it does not take (and those it does not know).
import assert from "node:assert/strict";
import type Koa from "koa";
import { Router } from "@koa/router";
import { operationList } from "../../generated/operations.ts";
import { routeIndex } from "../../src/transports/http/route-index.ts";

interface Outcome {
  route: string | null;
  params: Record<string, string> | null;
}

const routes = operationList.map((op) => ({
  method: op.method,
  routePath: op.routePath,
  id: op.id,
  middleware: (async (ctx: Koa.Context) => {
    (ctx.state as { route?: string }).route = op.id;
  }) as Koa.Middleware,
}));

function fakeContext(method: string, path: string): Koa.Context {
  return { method, path, state: {} } as unknown as Koa.Context;
}

async function throughIndex(method: string, path: string): Promise<Outcome | "passed on"> {
  const ctx = fakeContext(method, path);
  let passed = false;
  await routeIndex(routes)(ctx, async () => {
    passed = true;
  });
  if (passed) return "passed on";
  return { route: (ctx.state as { route?: string }).route ?? null, params: (ctx as unknown as { params: Record<string, string> }).params };
}

const router = new Router();
for (const r of routes) router.register(r.routePath, [r.method], r.middleware);

function throughRouter(method: string, path: string): Outcome {
  const matched = router.match(path, method).pathAndMethod;
  const first = matched[0];
  if (!first) return { route: null, params: null };
  const index = router.stack.indexOf(first);
  const captures = first.captures(path);
  return { route: routes[index]!.id, params: first.params(path, captures, {}) as Record<string, string> };
}

/** Paths for a pattern: each parameter filled with an id, a slug, and the literal of a sibling route. */
function samplePaths(routePath: string): string[] {
  const fills = ["0f8fad5b-d9cb-469f-a165-70867728950e", "my_handle-2", "current", "42"];
  return fills.map((fill) => routePath.replace(/:[A-Za-z0-9_]+/g, fill));
}

describe("route index", () => {
  it("runs the route @koa/router's first match names, with the same parameters, for every operation", async () => {
    let checked = 0;
    for (const op of routes) {
      for (const path of samplePaths(op.routePath)) {
        for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
          const expected = throughRouter(method, path);
          const got = await throughIndex(method, path);
          if (expected.route === null) assert.equal(got, "passed on", `${method} ${path}`);
          else assert.deepEqual(got, expected, `${method} ${path}`);
          checked++;
        }
      }
    }
    assert.ok(checked > 1000);
  });

  it("leaves to the router what it does not take: trailing slashes, encodings, other cases, HEAD, unknown paths", async () => {
    for (const [method, path] of [
      ["GET", "/v1/tokens/"],
      ["GET", "/v1/teams/curr%65nt"],
      ["GET", "/V1/TOKENS"],
      ["HEAD", "/v1/tokens"],
      ["GET", "/v1/no-such-thing"],
      ["GET", "/"],
      ["GET", "/v1/projects/a.b/plans"],
      ["GET", "//v1/tokens"],
    ] as const) {
      assert.equal(await throughIndex(method, path), "passed on", `${method} ${path}`);
    }
  });

  it("refuses to index a pattern it could not match as the router does", () => {
    assert.throws(() => routeIndex([{ method: "GET", routePath: "/v1/files/:name(.*)", middleware: async () => undefined }]), /not a pattern/);
  });
});
