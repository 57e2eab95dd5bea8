# syntax=docker/dockerfile:1
# SubBridge's production image: the compiled build (dist/, no tsx at run time) on the current Node
# LTS line that CI tests (NODE_VERSION), run as the image's unprivileged user. CI has no container
# engine: `npm run container:check` lints this file and runs its commands outside a container.

ARG NODE_VERSION=24

# Stage 1: every dependency (the build needs TypeScript, the SDK's and the dashboard's bundlers),
# then the build, then the dev dependencies pruned away so stage 2 copies only what runs.
FROM node:${NODE_VERSION}-trixie-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY . .
# npm ci runs the install scripts package.json's allowScripts approves and the root's prepare (the
# dashboard bundle, then the SDK package and the server's build, whose stamp dist/.built must be
# there); then the dev dependencies pruned away, and an empty folder for the runtime stage's data
# volume (it copies it in, owned by its user).
RUN npm ci && test -f dist/.built && npm prune --omit=dev && mkdir data

# Stage 2: what the server reads at run time: the compiled code, the generated documents, the
# spec's connector schema, the pages' assets under src/, the connectors and the dashboard bundle.
FROM node:${NODE_VERSION}-trixie-slim AS runtime
# NODE_COMPILE_CACHE: Node keeps the compiled code of the modules it loads there, so a restart
# skips compiling them again (on Node 24, /up after a restart on PostgreSQL 1.8 s -> 1.6 s).
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 NODE_COMPILE_CACHE=/tmp/node-compile-cache
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/sdk/package.json sdk/package.json
COPY --from=build /app/sdk/dist sdk/dist
COPY --from=build /app/dashboard/package.json dashboard/package.json
COPY --from=build /app/dashboard/dist dashboard/dist
COPY --from=build /app/dist dist
COPY --from=build /app/generated generated
COPY --from=build /app/spec spec
COPY --from=build /app/src src
COPY --from=build /app/connectors connectors
# The embedded default keeps its database in DATA_DIR: a volume the unprivileged user owns.
COPY --from=build --chown=node:node /app/data /data
VOLUME ["/data"]
USER node
# api, mcp, auth, site, docs, portal, dashboard
EXPOSE 4000 4001 4002 4003 4004 4005 4007
# /up on the API (API_PORT, default 4000); the slim image has no curl, so node's own fetch asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.API_PORT || 4000) + '/up').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm run start:prod` runs, without npm in between, so docker stop's SIGTERM reaches the server.
CMD ["node", "--max-semi-space-size=4", "dist/src/main.js"]
