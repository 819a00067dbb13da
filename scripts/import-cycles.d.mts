/** Types of scripts/import-cycles.mjs, for the TypeScript tests that import it. */

/** The `src/` folders checked when none is named, absolute. */
export declare function defaultFolders(): string[];
/**
 * The import cycles of one folder, each a list of paths relative to it that ends with its first one
 * (`['a.ts', 'b.ts', 'a.ts']`).
 */
export declare function importCycles(folder: string): string[][];
