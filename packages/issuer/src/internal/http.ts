/**
 * HTTP helpers for the issuer's own routes: bounded body reading, JSON with a nesting limit checked
 * before parsing, and response writers.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.js';

/** Security headers on every JSON response. */
const JSON_HEADERS = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

/** Read the whole body, refusing more than `limit` bytes (413) before buffering them. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) throw new PayloadTooLargeError();
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limit) throw new PayloadTooLargeError();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received);
}

/**
 * Nesting depth of a JSON text, found by a linear scan that skips strings; stops as soon as `max` is
 * exceeded, so a 10,000-deep document costs nothing to refuse.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}

/**
 * Keys that reach an object's prototype when a parsed document is copied by assignment
 * (`target[key] = value`, as schema libraries and merges do): `{"__proto__":{…}}` would then replace
 * the copy's prototype (and vanish from what is stored) instead of being data.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path (`body.context.a.__proto__`) of the first prototype key (`__proto__`, `constructor`,
 * `prototype`) anywhere in a parsed JSON document, or `undefined`. The walk is as deep as the document,
 * whose depth was bounded before parsing.
 *
 * @example
 * ```ts
 * prototypeKeyPath(JSON.parse('{"context":{"__proto__":{"admin":true}}}')); // 'body.context.__proto__'
 * ```
 */
export function prototypeKeyPath(value: unknown, path = 'body'): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [key, item] of entries) {
    const at = `${path}.${key}`;
    if (PROTOTYPE_KEYS.has(String(key))) return at;
    const found = prototypeKeyPath(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether the request declares a JSON body. */
export function isJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type);
}

/** Read and parse a JSON body. No body → `undefined`. */
export async function readJson(req: IncomingMessage, limit: number, maxDepth: number): Promise<unknown> {
  const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0';
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!hasBody && !chunked) return undefined;
  if (!isJson(req)) throw new UnsupportedMediaTypeError();
  const raw = await readBody(req, limit);
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new ValidationError('Request body is not valid UTF-8');
  }
  if (jsonDepthExceeds(text, maxDepth))
    throw new ValidationError(`JSON nesting deeper than ${maxDepth} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationError('Request body is not valid JSON');
  }
  const forbidden = prototypeKeyPath(parsed);
  if (forbidden !== undefined) {
    const key = forbidden.slice(forbidden.lastIndexOf('.') + 1);
    throw new ValidationError(`The key "${key}" is not allowed in a request body`, [
      {
        path: forbidden,
        message: `"${key}" is reserved (it could reach an object prototype): rename the key`,
      },
    ]);
  }
  return parsed;
}

/** Read a small `application/x-www-form-urlencoded` body; repeated fields are refused. */
export async function readForm(req: IncomingMessage, limit: number): Promise<Map<string, string>> {
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(type)) {
    throw new UnsupportedMediaTypeError();
  }
  const params = new URLSearchParams((await readBody(req, limit)).toString('utf8'));
  const out = new Map<string, string>();
  for (const [name, value] of params) {
    if (out.has(name)) throw new ValidationError('Repeated form field');
    out.set(name, value);
  }
  return out;
}

/** Send a JSON body. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, ...headers, 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

/** Send a response without a body (204, 303 …). */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'cache-control': 'no-store', ...headers });
  res.end();
}

/** Send an HTML page with the given headers. */
export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Readonly<Record<string, string>>,
): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
