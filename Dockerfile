# storage-inspector as a container: serves a storage mounted read-only at /storage.
#   docker build -t storage-inspector .
#   docker run --rm -p 127.0.0.1:4567:4567 -v /data/storage:/storage:ro \
#     -e STORAGE_INSPECTOR_ALLOWED_HOSTS=localhost storage-inspector
# Without credentials (STORAGE_INSPECTOR_AUTH_TOKEN_FILE, ..._BASIC_AUTH_FILE) or allowed host
# names, serve refuses to listen beyond loopback: publish the port on 127.0.0.1 and name the
# host names browsers use, or require credentials.
# The build installs exactly the lock file (npm ci, whose `prepare` script builds the TypeScript
# sources and the web viewer); the image keeps the build and the runtime dependencies.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    STORAGE_INSPECTOR_HOST=0.0.0.0 \
    STORAGE_INSPECTOR_PORT=4567
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's unprivileged user (uid 1000): it needs read access to the storage, nothing more.
USER node
EXPOSE 4567
VOLUME ["/storage"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve", "/storage"]
