/**
 * Hostile capability declarations through `loadDeclaration`: a valid declaration with one
 * member replaced (by arbitrary or hostile values), dropped or added, and inputs that are not
 * JSON at all. Each is either accepted — and then is a fixpoint (loading it again gives the
 * same digest) — or refused with `declaration_invalid` whose details name a JSON pointer and a
 * reason; never another exception. Control: a naive loader (checks the tier only) is caught by
 * the same property.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CapabilityDeclaration } from "../../src/adapters/contract.js";
import { declarationDigest, loadDeclaration } from "../../src/adapters/declaration.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
  REFDEST_C3_DECLARATION,
} from "../../src/adapters/declarations/refdest.js";
import { IrrevonError, isIrrevonError } from "../../src/core/errors.js";

const RUNS = process.env["IRREVON_PROOF_SCALE"] === "full" ? 20_000 : 1_000;

type Path = readonly (string | number)[];

/** Every path to a member of `value` (objects and arrays), root excluded. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== "object" || value === null) return [];
  const out: Path[] = [];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries) {
    out.push([...prefix, k]);
    out.push(...pathsOf(v, [...prefix, k]));
  }
  return out;
}

function mutate(base: unknown, path: Path, op: "set" | "delete" | "add", value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (op === "delete") {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else if (op === "add" && !Array.isArray(node)) {
    node[`extra_${String(last)}`] = value;
  } else {
    node[last] = value;
  }
  return copy;
}

const hostile = fc.oneof(
  fc.anything(),
  fc.constantFrom(NaN, Infinity, -0, "", "PT", "P1D", "PT-1S", "PT1e9H", "\ud800", null, [], {}),
  fc.string({ maxLength: 40 }),
  fc.constant("x".repeat(100_000)),
);

const bases = [REFDEST_C1_DECLARATION, REFDEST_C2_DECLARATION, REFDEST_C3_DECLARATION];

const mutated = fc
  .tuple(fc.constantFrom(...bases), fc.nat(), fc.constantFrom("set", "delete", "add"), hostile)
  .map(([base, pick, op, value]) => {
    const paths = pathsOf(base);
    return mutate(base, paths[pick % paths.length] ?? ["tier"], op, value);
  });

function cyclic(): unknown {
  const o: Record<string, unknown> = { ...REFDEST_C2_DECLARATION };
  o["self"] = o;
  return o;
}

const anyDeclaration = fc.oneof(
  { weight: 8, arbitrary: mutated },
  { weight: 1, arbitrary: fc.anything({ withBigInt: true }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(10n, cyclic(), Symbol("d"), () => 1) },
);

type Loader = (input: unknown) => CapabilityDeclaration;

function loaderProperty(load: Loader): fc.IPropertyWithHooks<[unknown]> {
  return fc.property(anyDeclaration, (input) => {
    let loaded: CapabilityDeclaration;
    try {
      loaded = load(input);
    } catch (e) {
      if (!isIrrevonError(e) || e.code !== "declaration_invalid") throw e;
      expect(typeof e.details["path"]).toBe("string");
      expect(String(e.details["path"])).toMatch(/^(\/.*)?$/);
      expect(typeof e.details["reason"]).toBe("string");
      expect(String(e.details["reason"]).length).toBeGreaterThan(0);
      return;
    }
    // Accepted: the full validator agrees and the digest is stable.
    expect(declarationDigest(loadDeclaration(loaded))).toBe(declarationDigest(loaded));
  });
}

describe("fuzz: capability declarations", () => {
  it("accepted declarations are fixpoints; refusals are declaration_invalid naming a path", () => {
    fc.assert(loaderProperty(loadDeclaration), { numRuns: RUNS });
  });

  it("the three refdest declarations themselves load", () => {
    for (const d of bases) expect(loadDeclaration(d)).toEqual(d);
  });

  it("control: a loader that checks only the tier is caught by the same property", () => {
    const naive: Loader = (input) => {
      const d = JSON.parse(JSON.stringify(input) ?? "null") as CapabilityDeclaration | null;
      if (d === null || !["C1", "C2", "C3"].includes(d.tier)) {
        throw new IrrevonError("declaration_invalid", "bad tier", {
          details: { path: "/tier", reason: "bad tier" },
        });
      }
      return d;
    };
    expect(fc.check(loaderProperty(naive), { numRuns: RUNS }).failed).toBe(true);
  });
});
