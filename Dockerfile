# The CLI as a user installs it: the packed package with every optional client (NATS, Redis,
# OTLP/gRPC) installed beside it.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md CHANGELOG.md LICENSE NOTICE ./
COPY src ./src
COPY scripts/bundle-cli.mjs ./scripts/
RUN npm pack --silent && node -e "const p = require('./package.json'); console.log(Object.keys(p.peerDependenciesMeta).map((n) => n + '@' + p.peerDependencies[n]).join(' '))" > optional-clients.txt

FROM node:24-slim
COPY --from=build /app/agent-otel-bridge-*.tgz /app/optional-clients.txt /tmp/
RUN npm install --global --no-audit --no-fund /tmp/agent-otel-bridge-*.tgz $(cat /tmp/optional-clients.txt) && rm /tmp/agent-otel-bridge-*.tgz /tmp/optional-clients.txt
ENV NODE_ENV=production
USER node
ENTRYPOINT ["agent-otel-bridge"]
CMD ["demo"]
