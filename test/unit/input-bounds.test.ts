/**
 * Every walk over untrusted input is bounded before it starts and linear in its input (issue
 * 10 item 5). The work is counted, never timed: inputs are built from Proxies whose traps count
 * every read the library makes (prototype, own keys, descriptors, property reads), so the count
 * is exactly how many times any walk touched the input. A 100,000-deep value must be refused
 * with `contract_invalid` / `max_depth` after work proportional to the depth LIMIT, and work on
 * inputs inside the bounds must grow linearly with their size.
 */
import { describe, expect, it } from "vitest";
import { findAdvisory, rejectAdvisory } from "../../src/core/advisory-guard.js";
import { validateIntentContract } from "../../src/core/contract.js";
import { CONTRACT_BOUNDS } from "../../src/core/preflight.js";
import { redactStableIds } from "../../src/core/stable-id-redaction.js";
import { expectContractError, thrown, validContract } from "./helpers/contracts.js";

interface Meter {
  reads: number;
}

/** A handler that counts every trap the engine code triggers on the target. */
function countingHandler(meter: Meter): ProxyHandler<object> {
  return {
    get: (t, k, r) => ((meter.reads += 1), Reflect.get(t, k, r)),
    has: (t, k) => ((meter.reads += 1), Reflect.has(t, k)),
    ownKeys: (t) => ((meter.reads += 1), Reflect.ownKeys(t)),
    getOwnPropertyDescriptor: (t, k) => (
      (meter.reads += 1),
      Reflect.getOwnPropertyDescriptor(t, k)
    ),
    getPrototypeOf: (t) => ((meter.reads += 1), Reflect.getPrototypeOf(t)),
  };
}

/** `{deep: {deep: … 0}}` `depth` levels deep, every level a counting proxy (built inside out). */
function countedChain(depth: number, meter: Meter): object {
  const handler = countingHandler(meter);
  let value: unknown = 0;
  for (let i = 0; i < depth; i += 1) value = new Proxy({ deep: value }, handler);
  return value as object;
}

/** `{items: [{n:0}, …, {n:width-1}], bad: <too deep>}`: every item is read before the refusal. */
function countedWide(width: number, meter: Meter): object {
  const handler = countingHandler(meter);
  const items = Array.from({ length: width }, (_, n) => new Proxy({ n }, handler));
  return new Proxy(
    { items: new Proxy(items, handler), bad: countedChain(CONTRACT_BOUNDS.maxDepth + 8, meter) },
    handler,
  );
}

const DEEP = `$.parameters${".deep".repeat(CONTRACT_BOUNDS.maxDepth)}`;
/** Generous per-node allowance: a handful of reads per node visited, never per ancestor. */
const READS_PER_NODE = 40;

describe("a nested value far beyond the depth bound is refused after O(limit) work", () => {
  it.each([5_000, 100_000])("%i levels in parameters → max_depth at depth 33", (depth) => {
    const meter: Meter = { reads: 0 };
    const contract = { ...validContract(), parameters: countedChain(depth, meter) };
    const error = expectContractError(() => validateIntentContract(contract), {
      path: DEEP,
      limit: "max_depth",
    });
    expect(error.details["limit_value"]).toBe(CONTRACT_BOUNDS.maxDepth);
    expect(meter.reads).toBeLessThanOrEqual(READS_PER_NODE * (CONTRACT_BOUNDS.maxDepth + 2));
  });

  it("the advisory guard alone refuses a 100,000-deep value after O(limit) work", () => {
    const meter: Meter = { reads: 0 };
    const error = thrown(() => rejectAdvisory(countedChain(100_000, meter)));
    expect(error.code).toBe("contract_invalid");
    expect(error.details["limit"]).toBe("max_depth");
    expect(meter.reads).toBeLessThanOrEqual(READS_PER_NODE * 80);
  });

  it("a 100,000-deep array (no proxies) is refused naming the path and limit", () => {
    let value: unknown = 0;
    for (let i = 0; i < 100_000; i += 1) value = [value];
    expectContractError(
      () => validateIntentContract({ ...validContract(), parameters: { deep: value } }),
      {
        path: `$.parameters.deep${"[0]".repeat(CONTRACT_BOUNDS.maxDepth - 1)}`,
        limit: "max_depth",
      },
    );
  });
});

describe("work grows linearly with the input", () => {
  const readsFor = (width: number): number => {
    const meter: Meter = { reads: 0 };
    const contract = { ...validContract(), parameters: countedWide(width, meter) };
    expectContractError(() => validateIntentContract(contract), {
      path: `$.parameters.bad${".deep".repeat(CONTRACT_BOUNDS.maxDepth - 1)}`,
      limit: "max_depth",
    });
    return meter.reads;
  };

  it("work(2n) ≤ 2·work(n) + c for contracts inside the node bound", () => {
    const sizes = [500, 1_000, 2_000, 4_000];
    const work = sizes.map(readsFor);
    const base = readsFor(1);
    for (let i = 1; i < sizes.length; i += 1) {
      expect(work[i]).toBeLessThanOrEqual(2 * (work[i - 1] as number) + base);
    }
    // And the constant per node is small: no walk re-reads a node once per ancestor.
    expect(work[3]).toBeLessThanOrEqual(READS_PER_NODE * 4_000 + base);
  });

  it("findAdvisory over evidence-shaped data is linear and finds nothing in clean data", () => {
    const work = [1_000, 2_000, 4_000].map((n) => {
      const meter: Meter = { reads: 0 };
      const handler = countingHandler(meter);
      const rows = Array.from({ length: n }, (_, i) => new Proxy({ probe_id: i }, handler));
      expect(findAdvisory(new Proxy({ rows }, handler))).toBeUndefined();
      return meter.reads;
    });
    expect(work[1]).toBeLessThanOrEqual(2 * (work[0] as number) + 16);
    expect(work[2]).toBeLessThanOrEqual(2 * (work[1] as number) + 16);
  });
});

describe("walks over stored documents stay iterative", () => {
  it("stable-id redaction handles a 200,000-element array without a stack overflow", () => {
    const items = Array.from({ length: 200_000 }, (_, i) => ({ stable_ids: { k: `v-${i}` } }));
    const out = redactStableIds({ items });
    expect(out.items).toHaveLength(200_000);
    expect(out.items[0]?.stable_ids.k).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
