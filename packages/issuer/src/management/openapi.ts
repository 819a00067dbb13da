/**
 * The OpenAPI 3.1 document of the Management API, generated from the route table and the schemas registered
 * in the registries of `primitives.ts` by each resource (no schema is written twice).
 *
 * @module
 */
import { z } from 'zod';
import type { ResolvedConfig } from '../issuer-config.js';
import type { Registries } from './primitives.js';
import type { RouteDef } from './router.js';
import { MANAGEMENT_SCOPES } from './scopes.js';

const REF = (id: string) => `#/components/schemas/${id}`;

type JsonObject = Record<string, unknown>;

function strip(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/** JSON Schema of `schema`: a `$ref` when it is registered, inline otherwise. */
function schemaOf(schema: z.ZodType, schemas: Registries, io: 'input' | 'output'): JsonObject {
  const registry = io === 'input' ? schemas.requests : schemas.responses;
  const meta = registry.get(schema);
  if (meta !== undefined) return { $ref: REF(meta.id) };
  return strip(z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonObject);
}

function queryParameters(schema: z.ZodType): JsonObject[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonObject>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

/**
 * Build the document.
 *
 * @example
 * ```ts
 * const doc = buildOpenApi(config, routes, schemas);
 * console.log(doc.paths['/users'].get.summary); // "List users"
 * ```
 */
export function buildOpenApi(config: ResolvedConfig, routes: readonly RouteDef[], schemas: Registries) {
  const components = {
    ...(
      z.toJSONSchema(schemas.requests, { io: 'input', unrepresentable: 'any', uri: REF }) as {
        schemas: Record<string, JsonObject>;
      }
    ).schemas,
    ...(
      z.toJSONSchema(schemas.responses, { io: 'output', unrepresentable: 'any', uri: REF }) as {
        schemas: Record<string, JsonObject>;
      }
    ).schemas,
  };
  const errorResponse = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: REF('Error') } } },
  });
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const parameters = [
      ...[...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string', maxLength: 200 },
      })),
      ...(route.query === undefined ? [] : queryParameters(route.query)),
    ];
    const responses: Record<string, JsonObject> = {
      [route.success.status]:
        route.success.schema === undefined
          ? { description: route.success.description }
          : {
              description: route.success.description,
              content: { 'application/json': { schema: schemaOf(route.success.schema, schemas, 'output') } },
            },
      400: errorResponse(
        'Invalid request: the body, query or path failed validation (unknown fields included)',
      ),
      401: errorResponse(
        route.change?.recentSignIn === undefined
          ? 'Missing, expired, forged or wrong-audience token'
          : 'Missing, expired, forged or wrong-audience token, or a console user whose sign-in is older than console.reauthenticateAfter (insufficient_user_authentication, with max_age in WWW-Authenticate)',
      ),
      403: errorResponse(
        route.change?.acts === undefined
          ? 'Missing scope, a delegated (act) token, or neither a machine-to-machine nor an admin console token'
          : 'Missing scope, a delegated (act) token, neither a machine-to-machine nor an admin console token, or beyond the scope ceiling (reason in the body)',
      ),
    };
    if (route.path.includes('{')) responses[404] = errorResponse('Not found');
    if (route.method === 'POST' || route.method === 'PATCH' || route.method === 'DELETE')
      responses[409] = errorResponse('Conflict');
    if (route.body !== undefined) responses[413] = errorResponse('Body too large');
    const operation: JsonObject = {
      summary: route.summary,
      tags: [route.tag],
      operationId: `${route.method.toLowerCase()}${route.path.replace(/\{(\w+)\}/g, 'By-$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      security: [{ bearer: ['all', ...route.scopes] }],
      parameters,
      responses,
    };
    if (route.change !== undefined) {
      operation['x-gatehouse-change'] = {
        auditEvent: route.change.event,
        actsOn: { ...route.change.acts },
        ...(route.change.recentSignIn === undefined ? {} : { recentSignIn: route.change.recentSignIn }),
      };
    }
    if (route.body !== undefined) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: schemaOf(route.body, schemas, 'input') } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse issuer Management API',
      version: '1',
      description:
        'Manage users, applications, API resources, roles and signing keys. Authenticate with a machine-to-machine access token ' +
        `whose audience is ${config.managementAudience} (client credentials with resource=${config.managementAudience}), ` +
        `or, from the admin console (${config.baseUrl}/console), a signed-in user's token holding the scopes of their roles.`,
    },
    servers: [{ url: config.managementAudience }],
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'oauth2',
          description: `Client credentials; resource indicator ${config.managementAudience}. Scope "all" grants every route.`,
          flows: {
            clientCredentials: {
              tokenUrl: `${config.issuer}/token`,
              scopes: Object.fromEntries(MANAGEMENT_SCOPES.map((scope) => [scope.name, scope.description])),
            },
          },
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
