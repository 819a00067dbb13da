/**
 * `@gatehouse/core` on Node: the whole API of the package, plus {@link nodeRequestLike}, the view of a
 * Node `IncomingMessage` the Node adapters share. This is the entry of the Node build (`node:crypto`);
 * the web build's entry, index.ts, does not import it.
 *
 * @example
 * ```ts
 * import { createVerifier, nodeRequestLike } from '@gatehouse/core/node';
 *
 * const verifier = createVerifier({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
 * createServer(async (req, res) => {
 *   const auth = await verifier.authenticate(nodeRequestLike(req));
 *   res.end(auth.subject);
 * });
 * ```
 *
 * @module
 */
export * from './index.js';
export {
  type NodeIncoming,
  type NodeRequestLocation,
  type NodeRequestOptions,
  nodeRequestLike,
} from './node-request.js';
