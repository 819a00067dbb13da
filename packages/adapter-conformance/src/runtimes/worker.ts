/**
 * workerd entry of the suite: a Worker whose `CONFIG` binding (JSON) names the app and one variant;
 * the workerd config runs one service per variant. Bundled for workerd (`workerd` export condition).
 *
 * @module
 */
import { handlerFor, type ServeConfig } from './serve-config.js';

interface Env {
  readonly CONFIG: string;
}

let handler: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    if (handler === undefined) {
      const config = JSON.parse(env.CONFIG) as ServeConfig;
      handler = handlerFor(config.app, config.variants[0]!);
    }
    return handler(request);
  },
};
