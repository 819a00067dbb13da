/**
 * Real Nest applications on loopback for the tests, on either HTTP platform.
 */
import type { AddressInfo } from 'node:net';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';

/** Nest's HTTP platforms, each test runs on both. */
export const PLATFORMS = ['express', 'fastify'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** A listening app. */
export interface RunningApp {
  readonly app: INestApplication;
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
}

const running: INestApplication[] = [];

/** Create (not yet initialized) an app on `platform`; {@link closeAll} closes it. */
export async function create(platform: Platform, module: Type | DynamicModule): Promise<INestApplication> {
  const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
  const app = await NestFactory.create(module, adapter, { logger: false, abortOnError: false });
  running.push(app);
  return app;
}

/** Start an app on `platform` and listen on a random loopback port. */
export async function start(
  platform: Platform,
  module: Type | DynamicModule,
  configure?: (app: INestApplication) => void,
): Promise<RunningApp> {
  const app = await create(platform, module);
  configure?.(app);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}` };
}

/** Close every app started since the last call. */
export async function closeAll(): Promise<void> {
  await Promise.all(running.splice(0).map((app) => app.close()));
}

/** `fetch` with a bearer token (or none). */
export function get(url: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  return fetch(url, { ...init, headers });
}
