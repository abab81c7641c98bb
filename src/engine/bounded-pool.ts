/**
 * engine/bounded-pool — runs an async function over a list with at most `limit` calls in
 * flight. Each item is handed to exactly one call (a shared cursor, no re-queue), so an item is
 * never worked on twice; results keep the input order. The first rejection stops the pool from
 * starting further items; the calls already running are awaited, then that rejection is
 * thrown (nothing keeps running behind the caller's back). Callers that must go on past a
 * failed item catch inside `fn`. Imports: nothing.
 */

/** Maps `items` through `fn` with at most `limit` (≥ 1) calls running at once. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { readonly error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: lanes }, () => lane()));
  if (failure !== null) throw (failure as { readonly error: unknown }).error;
  return results;
}
