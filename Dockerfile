# bot-platform on the official Node 20 image: the production path of docs/deploy.md,
# step for step as .ci/production-check runs it (test/platform/dockerfile.test.ts holds the two to
# the same npm commands in the same order):
#   build:  npm ci, npm run build, npm prune --omit=dev
#   run:    npm run migrate, npm start
#
#   docker build -t bot-platform .
#   docker run -p 3000:3000 -v bot-platform-data:/data \
#     -e SESSION_SECRET=... -e IDENTITY_KEY_SECRET=... -e DM_MASTER_KEY=... -e EMAIL_SIGNIN=off bot-platform        # embedded PGlite in /data
# With DATABASE_URL (and DATABASE_DIRECT_URL behind a pooler) it uses Postgres instead: compose.yaml.
FROM node:20-bookworm-slim

WORKDIR /app

# One stage, and one RUN for the three build steps, on purpose:
# - the dev dependencies (TypeScript, esbuild, the test tools) never land in a layer of the image;
# - dist/ stays where it was built: `npm start` rebuilds when dist/ looks older than a source
#   (src/cli/build.mjs compares modification times), which a copy between stages may not keep, and
#   with TypeScript pruned that check would stop the server instead.
# NODE_ENV is set only afterwards: set during `npm ci` it would skip the dev dependencies the build needs.
COPY . .
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund \
    && npm run build \
    && npm prune --omit=dev --no-audit --no-fund

# The embedded PGlite database (used when DATABASE_URL is unset): a volume the node user owns.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    PGLITE_DIR=/data \
    NPM_CONFIG_UPDATE_NOTIFIER=false

EXPOSE 3000

# The image's own unprivileged user; the application files stay root's, read-only to it.
USER node

# Ready means the database answers (`/readyz`, within 2 s). The slim image has no curl: Node's fetch.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Migrations first (the server would also run them at start), then the server under npm, which
# passes SIGTERM on: the server finishes the requests in flight and exits 0, within 10 s, so give
# `docker stop` longer than its default 10 s (`--time 20`; compose.yaml's stop_grace_period).
# While the migrations run, sh is PID 1 and ignores SIGTERM: run with `--init` (compose: init: true)
# for a stop then to end them at once, as a signal ends `npm run migrate` anywhere.
CMD ["sh", "-c", "npm run migrate && exec npm start"]
