/**
 * Requests Node refuses before any handler runs (headers over `maxHeaderSize`, a malformed request
 * line or header, a header timeout) get a JSON answer like every other error of the issuer, instead
 * of Node's bare status line with an empty body: `431` for oversized headers, `408` for a timeout,
 * `400` otherwise. Nothing of the request is echoed.
 *
 * @module
 */
import { maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';

const ANSWERS: Readonly<Record<string, readonly [number, string, string]>> = Object.freeze({
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    `Request headers too large (at most ${maxHeaderSize} bytes in all)`,
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request headers did not arrive in time'],
});
const MALFORMED = [400, 'Bad Request', 'Malformed HTTP request'] as const;

/**
 * A `clientError` listener for an `http.Server`: answers with a JSON body and closes the connection.
 *
 * @example
 * ```ts
 * server.on('clientError', answerClientError);
 * // a 20 KB Authorization header → 431 {"code":"invalid_request","message":"Request headers too large (…)"}
 * ```
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A connection the client already dropped has nobody to answer; and, as Node's own handler does, a
  // response already under way on this connection (keep-alive) is never corrupted by a second one.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = ANSWERS[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ code: 'invalid_request', message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      'Cache-Control: no-store\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
