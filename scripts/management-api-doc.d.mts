/** Types of scripts/management-api-doc.mjs, for the TypeScript tests that import it. */

/** The base URL the reference is written for. */
export declare const BASE_URL: string;
/** Where the page goes, relative to the repository root. */
export declare const OUTPUT: string;
/** Heading of the permission matrix's "no token" column. */
export declare const NO_TOKEN: string;
/** A schema's type, as one line of Markdown. */
export declare function typeOf(schema: unknown): string;
/** Constraints worth telling a caller. */
export declare function constraintsOf(schema: unknown): string;
/** One operation's row of the permission matrix: column (`no token` or a scope) → `✓`, `403` or `401`. */
export interface PermissionRow {
  readonly method: string;
  readonly path: string;
  readonly cells: Record<string, string>;
}
/** The permission matrix of an OpenAPI document. */
export declare function permissionMatrix(openapi: unknown): { scopes: string[]; rows: PermissionRow[] };
/** Render the reference page. */
export declare function renderManagementApiDoc(openapi: unknown): string;
/** Start an issuer, fetch its OpenAPI document, stop it. */
export declare function fetchOpenApi(createIssuer: (config: never) => Promise<unknown>): Promise<unknown>;
