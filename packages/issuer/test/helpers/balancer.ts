/**
 * A loopback HTTP load balancer for tests: every request goes to the next live backend (round robin,
 * one request at a time, so consecutive requests of one client land on different instances), or to
 * the one `route` names.
 */
import { createServer, request } from 'node:http';

/** Something the balancer can send requests to. */
export interface Backend {
  readonly port: number;
  /** Whether it should get requests (a killed instance does not). Default: always. */
  live?(): boolean;
}

/** A running balancer. */
export interface LoadBalancer<B extends Backend = Backend> {
  /** `http://127.0.0.1:<port>`: the issuers' public base URL. */
  readonly url: string;
  /** Pick the backend of each request; round robin over the live ones when unset. */
  route: (() => B) | undefined;
  close(): Promise<void>;
}

/** Start a balancer on `port` in front of `backends`. */
export async function startLoadBalancer<B extends Backend>(
  port: number,
  backends: readonly B[],
): Promise<LoadBalancer<B>> {
  let next = 0;
  const roundRobin = () => {
    const live = backends.filter((backend) => backend.live?.() ?? true);
    return live[next++ % live.length]!;
  };
  const server = createServer((req, res) => {
    const target = (balancer.route ?? roundRobin)();
    const upstream = request(
      { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  const balancer: LoadBalancer<B> = {
    url: `http://127.0.0.1:${port}`,
    route: undefined,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return balancer;
}
