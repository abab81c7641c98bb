/**
 * bench/stats/p-adjust — multiplicity adjustment, exactly as R's `p.adjust`: Holm (step-down,
 * running maximum of (n − i + 1)·p₍ᵢ₎) and Benjamini–Hochberg (step-up, running minimum of
 * n/i·p₍ᵢ₎), both capped at 1 and returned in the input order. Ties keep input order, as
 * R's `order()` does. Imports: nothing.
 */

function ascendingOrder(p: readonly number[]): number[] {
  return p.map((_, i) => i).sort((a, b) => (p[a] as number) - (p[b] as number) || a - b);
}

/** Holm-adjusted p-values. */
export function holm(p: readonly number[]): number[] {
  const n = p.length;
  const order = ascendingOrder(p);
  const adjusted = new Array<number>(n);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (n - rank) * (p[index] as number)));
    adjusted[index] = running;
  });
  return adjusted;
}

/** Benjamini–Hochberg-adjusted p-values (false discovery rate). */
export function benjaminiHochberg(p: readonly number[]): number[] {
  const n = p.length;
  const order = ascendingOrder(p);
  const adjusted = new Array<number>(n);
  let running = 1;
  for (let rank = n - 1; rank >= 0; rank -= 1) {
    const index = order[rank] as number;
    running = Math.min(running, (n / (rank + 1)) * (p[index] as number));
    adjusted[index] = Math.min(1, running);
  }
  return adjusted;
}

/** Which hypotheses a Holm procedure at `alpha` rejects. */
export function holmRejects(p: readonly number[], alpha: number): boolean[] {
  return holm(p).map((q) => q < alpha);
}
