/**
 * Authority stamps (issue 10 item 6): a stamp further ahead of "now" than the clock-skew
 * tolerance is refused naming the field (it would never expire), and instants outside years
 * 0001–9999 UTC (which Postgres or our own text form cannot hold) fail validation instead of
 * reaching the database.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAuthorityStamp, DEFAULT_MAX_CLOCK_SKEW_MS } from "../../src/core/authority-stamp.js";
import { validateIntentContract } from "../../src/core/contract.js";
import { isRfc3339, rfc3339Problem } from "../../src/core/rfc3339.js";
import { NUM_RUNS, expectContractError, thrown, validContract } from "./helpers/contracts.js";

const NOW = Date.parse("2026-12-02T12:00:00Z");

describe("clock-skew tolerance on stamped_at", () => {
  it("defaults to 5 minutes", () => {
    expect(DEFAULT_MAX_CLOCK_SKEW_MS).toBe(300_000);
  });

  it("exactly at the tolerance passes; one microsecond beyond is refused", () => {
    const skew = 300_000;
    expect(() =>
      checkAuthorityStamp("2026-12-02T12:05:00.000000Z", { nowMs: NOW, maxClockSkewMs: skew }),
    ).not.toThrow();
    const error = thrown(() =>
      checkAuthorityStamp("2026-12-02T12:05:00.000001Z", { nowMs: NOW, maxClockSkewMs: skew }),
    );
    expect(error.code).toBe("contract_invalid");
    expect(error.details).toMatchObject({
      path: "$.stamped_at",
      field: "stamped_at",
      limit: "max_clock_skew",
      limit_value: skew,
    });
  });

  it("another error code can be asked for (fresh authority on resolve/retry)", () => {
    const error = thrown(() =>
      checkAuthorityStamp(
        "9999-12-31T23:59:59Z",
        { nowMs: NOW, maxClockSkewMs: 0 },
        "resolution_invalid",
      ),
    );
    expect(error.code).toBe("resolution_invalid");
    expect(error.details["limit"]).toBe("max_clock_skew");
  });

  it("offsets are honoured: +01:00 one hour ahead on the wall is now", () => {
    expect(() =>
      checkAuthorityStamp("2026-12-02T13:00:00+01:00", { nowMs: NOW, maxClockSkewMs: 0 }),
    ).not.toThrow();
  });

  it("never refuses a past stamp, refuses every stamp beyond the tolerance (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.integer({ min: 0, max: 3_600_000 }),
        (deltaMs, skew) => {
          const stamp = new Date(NOW + deltaMs).toISOString();
          const run = (): void => checkAuthorityStamp(stamp, { nowMs: NOW, maxClockSkewMs: skew });
          if (deltaMs <= skew) expect(run).not.toThrow();
          else expect(thrown(run).details["limit"]).toBe("max_clock_skew");
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe("instants Postgres cannot hold are refused in validation", () => {
  it.each([
    "0000-01-01T00:00:00Z",
    "0000-12-31T23:59:59.999999Z",
    "0001-01-01T00:00:00+00:01",
    "9999-12-31T23:59:59-00:01",
  ])("%s → range", (text) => {
    expect(rfc3339Problem(text)).toBe("range");
    expect(isRfc3339(text)).toBe(false);
    expectContractError(() => validateIntentContract({ ...validContract(), stamped_at: text }), {
      path: "$.stamped_at",
      limit: "date_time_range",
    });
  });

  it.each(["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "0001-01-01T00:01:00+00:01"])(
    "%s is inside the range",
    (text) => {
      expect(rfc3339Problem(text)).toBeNull();
    },
  );

  it("bad grammar is still `format`", () => {
    expect(rfc3339Problem("2026-13-01T00:00:00Z")).toBe("format");
    expectContractError(
      () => validateIntentContract({ ...validContract(), event_time: "yesterday" }),
      { path: "$.event_time", limit: "format" },
    );
  });
});
