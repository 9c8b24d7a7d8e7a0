# Build: docker build -t tourney .
FROM rust:1-bookworm AS build
WORKDIR /src
RUN apt-get update && apt-get install -y --no-install-recommends libpq-dev && rm -rf /var/lib/apt/lists/*
# Dependencies first, in their own layer: a change to our code does not rebuild them.
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
    && for b in rating standings seating schedule_quality rating_db; do echo 'fn main() {}' > benches/$b.rs; done \
    && cargo build --release --locked --bin tourney && rm -rf src benches
COPY src src
COPY migrations migrations
COPY benches benches
# The placeholder build left fresher artefacts of our own crate: make sure it is rebuilt.
RUN touch src/main.rs src/lib.rs && cargo build --release --locked --bin tourney

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* && useradd --system --home /var/lib/tourney tourney
COPY --from=build /src/target/release/tourney /usr/local/bin/tourney
USER tourney
ENV BIND_ADDR=0.0.0.0:8080 TOURNEY_DATA_DIR=/var/lib/tourney
EXPOSE 8080
HEALTHCHECK CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
CMD ["tourney", "serve"]
