/**
 * The adapter conformance suite (irrevon/testing): the project's RefdestAdapter passes it for
 * C1, C2, C3 and the lagged C2 profile, an adapter written with defineAdapter passes it, and
 * deliberately broken adapters fail it with the specific check named — a 404 treated as an
 * error, a list that drops its second page, a negative cache that stays ABSENT after the read
 * lag, a lagging destination declared PT0S, and a lost response reported as FAILED. With a
 * declared batch_max, the reference adapter passes the batch checks, and batches whose answers
 * differ from the single answers (a negative cache, reversed order, a missing answer, no
 * statusQueryBatch at all) fail them by name.
 */
import { describe, expect, it } from "vitest";
import type { Adapter, QueryKey, StatusResult } from "../../src/adapters/contract.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import type { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import {
  CONFORMANCE_CHECKS,
  assertConformant,
  checkAdapterConformance,
  createRefdest,
  inProcessRefdest,
  manualClock,
  refdestControls,
  refdestHarness,
  type ConformanceCheckName,
  type ConformanceReport,
} from "../../src/testing/index.js";
import { frozenTimeSource } from "../../src/refdest/index.js";
import { definedRefdestAdapter } from "../support/defined-refdest-adapter.js";

const statusOf = (r: ConformanceReport, name: ConformanceCheckName): string =>
  r.checks.find((c) => c.name === name)?.status ?? "missing";
const failedNames = (r: ConformanceReport): string[] => r.failures.map((f) => f.name);

/** An adapter identical to `inner` except for the overridden methods. */
function wrapAdapter(inner: Adapter, over: Partial<Adapter>): Adapter {
  return {
    adapterId: inner.adapterId,
    declare: () => inner.declare(),
    validatePayload: (t, p) => inner.validatePayload(t, p),
    dispatch: (o, d, s) => inner.dispatch(o, d, s),
    statusQuery: (k, d, s) => inner.statusQuery(k, d, s),
    listEffects: (w, c, d) => inner.listEffects(w, c, d),
    ...over,
  };
}

describe("the reference adapter is conformant", () => {
  it.each(["C1", "C2", "C3"] as const)(
    "RefdestAdapter %s passes every applicable check",
    async (tier) => {
      const report = await assertConformant(refdestHarness({ tier }));
      expect(report.passed).toBe(true);
      expect(report.tier).toBe(tier);
      expect(report.checks.map((c) => c.name)).toEqual([...CONFORMANCE_CHECKS]);
      expect(statusOf(report, "lost_response.outcome")).toBe("pass");
      expect(statusOf(report, "declaration.valid")).toBe("pass");
      if (tier === "C3") {
        expect(
          report.checks
            .filter((c) => c.status === "pass")
            .map((c) => c.name)
            .sort(),
        ).toEqual(["declaration.list_queryable", "declaration.valid", "lost_response.outcome"]);
      } else {
        for (const name of [
          "not_found.client_ref",
          "not_found.destination_ref",
          "lost_response.found_by_client_ref",
          "read_lag.visible_after_declared_lag",
          "list.pagination",
          "declaration.queryable",
        ] as const) {
          expect(statusOf(report, name), name).toBe("pass");
        }
        expect(statusOf(report, "declaration.idempotency")).toBe(tier === "C1" ? "pass" : "skip");
      }
    },
  );

  it("the lagged C2 profile (PT30S declared) passes, lag exercised", async () => {
    const report = await assertConformant(refdestHarness({ tier: "C2", lagSeconds: 30 }), {
      only: ["read_lag.visible_after_declared_lag", "lost_response.found_by_client_ref"],
    });
    expect(report.checks.every((c) => c.status === "pass")).toBe(true);
    expect(report.checks.find((c) => c.name.startsWith("read_lag"))?.reason).toMatch(
      /30000 ms of read lag \(declared PT30S\): ABSENT at once, PRESENT after the lag/,
    );
  });

  it("an adapter written with defineAdapter against the reference destination passes", async () => {
    const report = await assertConformant(() => {
      const destination = createRefdest({ tier: "C2", seed: 7, clock: frozenTimeSource });
      return refdestControls(destination, definedRefdestAdapter(destination));
    });
    expect(report.failures).toEqual([]);
    expect(report.checks.filter((c) => c.status === "pass")).toHaveLength(9);
  });
});

describe("broken adapters fail with the specific check named", () => {
  it("a 404 treated as an error fails not_found.*", async () => {
    const notFoundIsError = (k: QueryKey, inner: Adapter, d: number): Promise<StatusResult> =>
      inner
        .statusQuery(k, d)
        .then((r) => (r.result === "ABSENT" ? { ...r, result: "INDETERMINATE", nFound: null } : r));
    const report = await checkAdapterConformance(
      refdestHarness({
        tier: "C2",
        wrap: (a) => wrapAdapter(a, { statusQuery: (k, d) => notFoundIsError(k, a, d) }),
      }),
    );
    expect(report.passed).toBe(false);
    expect(failedNames(report).sort()).toEqual([
      "not_found.client_ref",
      "not_found.destination_ref",
    ]);
    expect(report.failures[0]?.reason).toMatch(/must be ABSENT/);
  });

  it("a list that drops the second page fails list.pagination", async () => {
    const report = await checkAdapterConformance(
      refdestHarness({
        tier: "C2",
        wrap: (a) =>
          wrapAdapter(a, {
            listEffects: async (w, c, d) => ({
              ...(await a.listEffects(w, c, d)),
              nextCursor: null,
            }),
          }),
      }),
    );
    expect(failedNames(report)).toEqual(["list.pagination"]);
    expect(report.failures[0]?.reason).toMatch(/listing 150 effects over 1 page\(s\): 50 missing/);
  });

  it("a negative cache that stays ABSENT after the read lag fails read_lag", async () => {
    const report = await checkAdapterConformance(
      refdestHarness({
        tier: "C2",
        lagSeconds: 30,
        wrap: (a) => {
          const absent = new Set<string>();
          return wrapAdapter(a, {
            statusQuery: async (k, d) => {
              if (absent.has(k.value))
                return {
                  result: "ABSENT",
                  nFound: 0,
                  destinationRefs: [],
                  evidence: { cached: true },
                };
              const r = await a.statusQuery(k, d);
              if (r.result === "ABSENT") absent.add(k.value);
              return r;
            },
          });
        },
      }),
      { only: ["read_lag.visible_after_declared_lag", "not_found.client_ref"] },
    );
    expect(failedNames(report)).toEqual(["read_lag.visible_after_declared_lag"]);
    expect(report.failures[0]?.reason).toMatch(
      /still ABSENT .* 30000 ms after a committed create \(declared status_settlement_lag PT30S\)/,
    );
  });

  it("a lagging destination declared PT0S fails read_lag (ABSENT right after commit)", async () => {
    const report = await checkAdapterConformance(
      refdestHarness({ tier: "C2", lagSeconds: 2, declaration: refdestDeclaration("C2") }),
      {
        only: ["read_lag.visible_after_declared_lag", "declaration.queryable"],
      },
    );
    expect(failedNames(report).sort()).toEqual([
      "declaration.queryable",
      "read_lag.visible_after_declared_lag",
    ]);
    expect(report.failures.find((f) => f.name.startsWith("read_lag"))?.reason).toMatch(
      /ABSENT right after a committed create while declaring status_settlement_lag PT0S/,
    );
  });

  it("a lost response reported FAILED fails lost_response.outcome; assertConformant lists it", async () => {
    const factory = refdestHarness({
      tier: "C1",
      wrap: (a) =>
        wrapAdapter(a, {
          dispatch: async (o, d, s) => {
            const r = await a.dispatch(o, d, s);
            return r.transportOutcome === "LOST"
              ? { transportOutcome: "FAILED", failureKind: "RETRYABLE", evidence: r.evidence }
              : r;
          },
        }),
    });
    const error = await assertConformant(factory, {
      only: ["lost_response.outcome", "declaration.valid"],
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "adapter_nonconformant",
      details: { failures: ["lost_response.outcome"] },
    });
    expect(String((error as Error).message)).toMatch(
      /lost_response\.outcome: .*FAILED lets the engine re-send/,
    );
  });

  it("an adapter that claims queryable but cannot find fails declaration.queryable", async () => {
    const report = await checkAdapterConformance(
      refdestHarness({
        tier: "C2",
        wrap: (a) =>
          wrapAdapter(a, {
            statusQuery: () =>
              Promise.resolve({
                result: "INDETERMINATE",
                nFound: null,
                destinationRefs: [],
                evidence: {},
              }),
          }),
      }),
      {
        only: ["declaration.queryable"],
      },
    );
    expect(failedNames(report)).toEqual(["declaration.queryable"]);
  });
});

describe("options and the public kit", () => {
  it("refuses bad options naming the field", async () => {
    await expect(
      checkAdapterConformance(refdestHarness({ tier: "C2" }), { listEffectsCount: 0 }),
    ).rejects.toMatchObject({
      code: "config_invalid",
      details: { field: "options.listEffectsCount" },
    });
    await expect(
      checkAdapterConformance(refdestHarness({ tier: "C2" }), {
        only: ["nope" as ConformanceCheckName],
      }),
    ).rejects.toMatchObject({ code: "config_invalid", details: { field: "options.only" } });
  });

  it("inProcessRefdest wires a destination and adapter; manualClock is the fake clock", async () => {
    const { destination, adapter } = inProcessRefdest({ tier: "C2", seed: 3 });
    const r = await adapter.dispatch(
      {
        operationId: "op1",
        effectType: "e",
        payload: {},
        clientRef: "op1",
        idempotencyKey: "op1",
        stableIds: {},
      },
      5000,
    );
    expect(r.transportOutcome).toBe("OK");
    expect(destination.truthDump().effects).toHaveLength(1);
    const clock = manualClock(new Date("2026-01-01T00:00:00Z"));
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe("2026-01-01T00:00:01.500Z");
  });
});

describe("an adapter that ignores its deadline", () => {
  it("fails the check whose call hangs, naming the deadline", async () => {
    const report = await checkAdapterConformance(
      refdestHarness({
        tier: "C2",
        wrap: (a) =>
          wrapAdapter(a, { statusQuery: () => new Promise<StatusResult>(() => undefined) }),
      }),
      { only: ["not_found.client_ref"], deadlineMs: 50 },
    );
    expect(failedNames(report)).toEqual(["not_found.client_ref"]);
    expect(report.failures[0]?.reason).toMatch(/did not settle within its deadline \(50 ms\)/);
  });
});

describe("batch status lookups (queryable.batch_max)", () => {
  it("RefdestAdapter with batch_max passes every check, the batch checks included", async () => {
    const report = await assertConformant(refdestHarness({ tier: "C2", batchMax: 7 }));
    expect(statusOf(report, "batch.matches_single")).toBe("pass");
    expect(statusOf(report, "batch.engine_respects_max")).toBe("pass");
    expect(report.checks.find((c) => c.name === "batch.engine_respects_max")?.reason).toMatch(
      /15 keys asked at once went out in 3 calls of 7, 7, 1 keys/,
    );
  });

  it("without batch_max the batch checks are skipped with the reason", async () => {
    const report = await checkAdapterConformance(refdestHarness({ tier: "C2" }), {
      only: ["batch.matches_single", "batch.engine_respects_max"],
    });
    expect(report.checks.map((c) => [c.name, c.status])).toEqual([
      ["batch.matches_single", "skip"],
      ["batch.engine_respects_max", "skip"],
    ]);
    expect(report.checks[0]?.reason).toMatch(/no queryable\.batch_max declared/);
  });

  /** The reference adapter with batch_max 5 and its batch call replaced by `batch(inner)`. */
  const brokenBatch = (
    batch: (inner: RefdestAdapter) => NonNullable<Adapter["statusQueryBatch"]>,
  ) =>
    refdestHarness({
      tier: "C2",
      batchMax: 5,
      wrap: (a) => wrapAdapter(a, { statusQueryBatch: batch(a) }),
    });

  it("a batch whose answers differ from the single answers fails batch.matches_single", async () => {
    // A negative cache: every client ref the batch is asked is answered ABSENT.
    const report = await checkAdapterConformance(
      brokenBatch((a) => async (keys, d, s) => {
        const out = await a.statusQueryBatch(keys, d, s);
        return out.map((r, i) =>
          keys[i]?.kind === "client_ref"
            ? { ...r, result: "ABSENT", nFound: 0, destinationRefs: [] }
            : r,
        );
      }),
    );
    expect(failedNames(report)).toEqual(["batch.matches_single"]);
    expect(report.failures[0]?.reason).toMatch(
      /key \d+ \(client_ref conf-.*\) was answered ABSENT \(n=0\), but the single status query answers PRESENT \(n=1/,
    );
  });

  it("a batch that answers out of key order fails batch.matches_single", async () => {
    const report = await checkAdapterConformance(
      brokenBatch(
        (a) => async (keys, d, s) => [...(await a.statusQueryBatch(keys, d, s))].reverse(),
      ),
      { only: ["batch.matches_single"] },
    );
    expect(failedNames(report)).toEqual(["batch.matches_single"]);
    expect(report.failures[0]?.reason).toMatch(/mixed order/);
  });

  it("a batch that drops an answer fails both batch checks, naming the violation", async () => {
    const report = await checkAdapterConformance(
      brokenBatch((a) => async (keys, d, s) => (await a.statusQueryBatch(keys, d, s)).slice(1)),
      { only: ["batch.matches_single", "batch.engine_respects_max"] },
    );
    expect(failedNames(report)).toEqual(["batch.matches_single", "batch.engine_respects_max"]);
    expect(report.failures[0]?.reason).toMatch(
      /answered 0 results; it must answer one result per key/,
    );
    expect(report.failures[1]?.reason).toMatch(/wrong_length/);
  });

  it("a declared batch_max without statusQueryBatch fails both batch checks", async () => {
    const report = await checkAdapterConformance(
      refdestHarness({
        tier: "C2",
        batchMax: 5,
        wrap: (a) => wrapAdapter(a, {}),
      }),
      { only: ["batch.matches_single", "batch.engine_respects_max"] },
    );
    expect(failedNames(report)).toEqual(["batch.matches_single", "batch.engine_respects_max"]);
    expect(report.failures[0]?.reason).toMatch(/has no statusQueryBatch/);
  });
});
