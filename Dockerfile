# Build: docker build -t tourney .
FROM rust:1-bookworm AS build
WORKDIR /src
RUN apt-get update && apt-get install -y --no-install-recommends libpq-dev && rm -rf /var/lib/apt/lists/*
COPY Cargo.toml Cargo.lock ./
COPY src src
COPY migrations migrations
COPY benches benches
RUN cargo build --release --locked --bin tourney

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* && useradd --system --home /var/lib/tourney tourney
COPY --from=build /src/target/release/tourney /usr/local/bin/tourney
USER tourney
ENV BIND_ADDR=0.0.0.0:8080 TOURNEY_DATA_DIR=/var/lib/tourney
EXPOSE 8080
HEALTHCHECK CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
CMD ["tourney", "serve"]
