/**
 * `register` on hostile input, on both backends (issue 10 items 5 and 6): nothing is written
 * and the error names the field and the limit.
 *   - a 100,000-deep parameters value → contract_invalid / max_depth after O(limit) reads;
 *   - `stamped_at` further in the future than the clock-skew tolerance → contract_invalid /
 *     max_clock_skew (year 9999 included); inside the tolerance it registers and dispatches;
 *   - year 0000 (which Postgres cannot store) → contract_invalid / date_time_range, never a
 *     raw database error.
 * "Now" is the database clock, the clock the gate's authority freshness uses.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { DEFAULT_ENGINE_CONFIG } from "../../src/engine/config.js";
import { IrrevonError } from "../../src/core/errors.js";
import { databaseNowMs } from "../../src/ledger/sql-util.js";
import { describeEachBackend } from "../support/databases.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

async function refusal(promise: Promise<unknown>): Promise<IrrevonError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(IrrevonError);
    return error as IrrevonError;
  }
  return expect.fail("expected the registration to be refused");
}

async function recordCount(f: EngineFixture): Promise<number> {
  const { rows } = await f.ledger.owner.query<{ n: unknown }>(
    "SELECT count(*) AS n FROM effect_records",
  );
  return Number(rows[0]?.n);
}

describeEachBackend("register refuses hostile input", (backend) => {
  let f: EngineFixture;
  beforeEach(async () => {
    f = await openEngineFixture(backend);
  });
  afterEach(async () => {
    await f.close();
  });

  it("a 100,000-deep parameters value: contract_invalid max_depth, O(limit) reads, nothing written", async () => {
    let reads = 0;
    const handler: ProxyHandler<object> = {
      ownKeys: (t) => ((reads += 1), Reflect.ownKeys(t)),
      getOwnPropertyDescriptor: (t, k) => ((reads += 1), Reflect.getOwnPropertyDescriptor(t, k)),
      get: (t, k, r) => ((reads += 1), Reflect.get(t, k, r)),
      getPrototypeOf: (t) => ((reads += 1), Reflect.getPrototypeOf(t)),
    };
    let value: unknown = 0;
    for (let i = 0; i < 100_000; i += 1) value = new Proxy({ deep: value }, handler);
    const error = await refusal(f.irrevon.register(orderContract({ parameters: value })));
    expect(error.code).toBe("contract_invalid");
    expect(error.details["path"]).toBe(`$.parameters${".deep".repeat(32)}`);
    expect(error.details["limit"]).toBe("max_depth");
    expect(reads).toBeLessThanOrEqual(40 * 34);
    expect(await recordCount(f)).toBe(0);
  });

  it("stamped_at beyond the skew tolerance is refused naming the field; inside it dispatches", async () => {
    const skewMs = DEFAULT_ENGINE_CONFIG.maxClockSkewMs;
    expect(skewMs).toBe(300_000);
    const now = await databaseNowMs(f.ledger.app);
    // A margin for the time between reading the database clock here and inside register.
    const outside = new Date(now + skewMs + 60_000).toISOString();
    const inside = new Date(now + skewMs - 60_000).toISOString();
    for (const stamp of [outside, "9999-12-31T23:59:59Z"]) {
      const error = await refusal(f.irrevon.register(orderContract({ stamped_at: stamp })));
      expect(error.code).toBe("contract_invalid");
      expect(error.details["path"]).toBe("$.stamped_at");
      expect(error.details["limit"]).toBe("max_clock_skew");
      expect(error.details["limit_value"]).toBe(skewMs);
    }
    expect(await recordCount(f)).toBe(0);
    const ok = await f.irrevon.register(orderContract({ stamped_at: inside }));
    expect(await f.irrevon.dispatch(ok.effectId)).toMatchObject({ status: "dispatched" });
  });

  it("the tolerance is configurable: 0 refuses a stamp one minute ahead", async () => {
    const strict = await f.openAnother("worker-strict", { maxClockSkewMs: 0 });
    const now = await databaseNowMs(f.ledger.app);
    const error = await refusal(
      strict.register(orderContract({ stamped_at: new Date(now + 60_000).toISOString() })),
    );
    expect(error.details["limit"]).toBe("max_clock_skew");
    expect(error.details["limit_value"]).toBe(0);
  });

  it("a fresh authority stamped in the future is refused on appendAuthority, retry and resolve", async () => {
    const { effectId } = await f.irrevon.register(orderContract());
    const error = await refusal(
      f.irrevon.operator.appendAuthority(effectId, {
        authorityRef: "auth_future",
        stampedAt: "9999-12-31T23:59:59Z",
      }),
    );
    expect(error.code).toBe("contract_invalid");
    expect(error.details["limit"]).toBe("max_clock_skew");
    expect(error.details["field"]).toBe("stamped_at");
    const retry = await refusal(
      f.irrevon.retry(effectId, { authorityRef: "auth_future", stampedAt: "9999-12-31T23:59:59Z" }),
    );
    expect(retry.code).toBe("resolution_invalid");
    expect(retry.details["limit"]).toBe("max_clock_skew");
    const resolve = await refusal(
      f.irrevon.resolve(1, "REDISPATCHED", {
        note: "n",
        fresh_authority_ref: "auth_future",
        stamped_at: "9999-12-31T23:59:59Z",
      }),
    );
    expect(resolve.code).toBe("resolution_invalid");
    expect(resolve.details["limit"]).toBe("max_clock_skew");
    const { rows } = await f.ledger.owner.query<{ n: unknown }>(
      "SELECT count(*) AS n FROM authorities WHERE authority_ref = 'auth_future'",
    );
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it.each([
    ["year 0000", "0000-06-01T00:00:00Z"],
    ["year 0001 whose UTC instant falls in year 0000", "0001-01-01T00:30:00+01:00"],
  ])("%s in stamped_at or event_time → date_time_range, never a database error", async (_n, t) => {
    for (const field of ["stamped_at", "event_time"]) {
      const error = await refusal(f.irrevon.register(orderContract({ [field]: t })));
      expect(error.code).toBe("contract_invalid");
      expect(error.details["path"]).toBe(`$.${field}`);
      expect(error.details["limit"]).toBe("date_time_range");
    }
    expect(await recordCount(f)).toBe(0);
  });
});
