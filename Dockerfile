# syntax=docker/dockerfile:1
# Lorehold as one executable in a small image: build with Bun, run as a non-root user.

FROM oven/bun:1.4-debian AS build
WORKDIR /src
COPY package.json bun.lock bunfig.toml ./
RUN bun install --frozen-lockfile
COPY . .
RUN bun run build

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl libgomp1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin lorehold \
 && mkdir -p /data /models /cache \
 && chown lorehold:lorehold /data /models /cache
COPY --from=build /src/dist/lorehold /usr/local/bin/lorehold
USER lorehold
WORKDIR /data
ENV LOREHOLD_HOST=0.0.0.0 \
    LOREHOLD_PORT=8080 \
    LOREHOLD_DATA_DIR=/data \
    LOREHOLD_MODELS_DIR=/models \
    LOREHOLD_NATIVE_DIR=/cache/native
VOLUME ["/data", "/models"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/lorehold"]
CMD ["serve"]
