/**
 * For a child of an interleaved benchmark (children.mjs): exit when stdin reaches end of file, which
 * means the benchmark that started this process is gone (even when it was killed outright). Works on
 * Node and Bun; imports nothing, so the Bun server bundle can include it.
 */
export function exitWithParent() {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
