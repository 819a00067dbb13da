# workerd configuration of the orders API: `workerd serve config.capnp` after `node scripts/build.ts`.
# Settings come from the environment (ISSUER, AUDIENCE, JWKS_URI, ALLOW_INSECURE_HTTP); the socket
# address can be overridden with `--socket-addr http=HOST:PORT`.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .ordersWorker),
    # Outbound fetches (the issuer's JWKS). "local" lets a development issuer on loopback be reached;
    # drop it, and "private", in production.
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const ordersWorker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "dist/worker.js")],
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "ISSUER", fromEnvironment = "ISSUER"),
    (name = "AUDIENCE", fromEnvironment = "AUDIENCE"),
    (name = "JWKS_URI", fromEnvironment = "JWKS_URI"),
    (name = "ALLOW_INSECURE_HTTP", fromEnvironment = "ALLOW_INSECURE_HTTP"),
  ],
);
