/**
 * The closed-loop load both issuer benchmarks apply (issuer.bench.mjs, storage.bench.mjs), and the
 * order in which their interleaved slices visit the targets.
 */

/**
 * Run `request(i)` with `concurrency` calls in flight for `ms`, or until it resolves to undefined (out
 * of work); every other answer must be true. Resolves to the requests done and the seconds taken.
 */
export async function load(ms, request, concurrency) {
  let done = 0;
  let failed = 0;
  let n = 0;
  const end = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const ok = await request(n++);
        if (ok === undefined) return;
        if (ok) done++;
        else failed++;
      }
    }),
  );
  if (failed > 0) throw new Error(`${failed} failed requests`);
  return { done, seconds: (performance.now() - started) / 1000 };
}

/** `names` starting at position `shift` (the first target rotates from slice to slice and round to round). */
export const rotated = (names, shift) => names.map((_, i) => names[(i + shift) % names.length]);
