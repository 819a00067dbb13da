/**
 * The SQLite database file and its directory are private: the directory is created `0700` and the
 * file `0600` (SQLite gives its `-wal` and `-shm` files the database file's mode). Existing ones are
 * left as they are, but a directory or file that group or others may use is reported as a warning at
 * start. File-system failures become a {@link DatabaseFileError} naming the path as it was given.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseFileError } from '../../errors.js';

/**
 * A database directory or file that group or others may read, write or enter.
 *
 * @example
 * ```ts
 * const warning: DatabaseFileWarning = { path: '.data', mode: 0o755, message: 'data directory .data is …' };
 * ```
 */
export interface DatabaseFileWarning {
  /** The directory or file. */
  readonly path: string;
  /** Its permission bits, e.g. `0o755`. */
  readonly mode: number;
  /** What to do about it, for a log line. */
  readonly message: string;
}

/** Permission bits of group and others. */
const SHARED = 0o077;

const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EISDIR: 'it is a directory',
};

/**
 * A short reason for a file-system error (its code in words, without the stack).
 *
 * @example
 * ```ts
 * reasonOf(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })); // 'permission denied'
 * ```
 */
export function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' ? REASONS[code] : undefined) ?? (err as Error).message;
}

function stat(path: string, database: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
    throw new DatabaseFileError(database, `cannot read ${path}: ${reasonOf(err)}`, { cause: err });
  }
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Make sure the directory of `database` exists (created `0700`) and the file exists (created `0600`),
 * and report existing ones that group or others may use. Throws a {@link DatabaseFileError} when
 * either cannot be created.
 *
 * @example
 * ```ts
 * for (const warning of prepareDatabaseFile('.data/issuer.sqlite')) log.warn(warning.message);
 * ```
 */
export function prepareDatabaseFile(database: string): DatabaseFileWarning[] {
  const warnings: DatabaseFileWarning[] = [];
  const directory = dirname(database);
  const found = stat(directory, database);
  if (found === undefined) {
    try {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new DatabaseFileError(database, `cannot create directory ${directory}: ${reasonOf(err)}`, {
        cause: err,
      });
    }
  } else if (!found.isDirectory()) {
    throw new DatabaseFileError(database, `${directory} is not a directory`);
  } else if ((found.mode & SHARED) !== 0) {
    warnings.push({
      path: directory,
      mode: found.mode & 0o777,
      message: `data directory ${directory} is open to group or others (mode ${octal(found.mode)}); it holds the signing keys: chmod 700 ${directory}`,
    });
  }
  for (const file of [database, `${database}-wal`, `${database}-shm`]) {
    const existing = stat(file, database);
    if (existing === undefined) continue;
    if (existing.isDirectory()) throw new DatabaseFileError(database, `${file} is a directory`);
    if ((existing.mode & SHARED) !== 0) {
      warnings.push({
        path: file,
        mode: existing.mode & 0o777,
        message: `database file ${file} is open to group or others (mode ${octal(existing.mode)}): chmod 600 ${file}`,
      });
    }
  }
  if (stat(database, database) === undefined) {
    try {
      closeSync(openSync(database, 'wx', 0o600));
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'EEXIST')
        throw new DatabaseFileError(database, `cannot create the file: ${reasonOf(err)}`, { cause: err });
    }
  }
  return warnings;
}
