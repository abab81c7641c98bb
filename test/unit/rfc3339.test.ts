/** RFC 3339 date-times: the full grammar, calendar ranges, leap seconds, same-instant comparison. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  epochMicrosOf,
  formatUtcMicros,
  isRfc3339,
  normalizeRfc3339,
  parseRfc3339,
  sameInstant,
} from "../../src/core/rfc3339.js";
import { NUM_RUNS, expectContractError } from "./helpers/contracts.js";

describe("RFC 3339 grammar", () => {
  it.each([
    "2026-01-15T09:30:00Z",
    "2026-01-15T09:30:00.1Z",
    "2026-01-15T09:30:00.123456789Z",
    "2026-01-15T09:30:00+01:00",
    "2026-01-15T09:30:00-23:59",
    "2026-01-15T09:30:00-00:00",
    "2026-01-15t09:30:00z",
    "2024-02-29T00:00:00Z",
    "2000-02-29T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999Z",
    "2016-12-31T23:59:60Z",
    "2017-01-01T00:59:60+01:00",
    "2016-12-31T15:59:60-08:00",
  ])("accepts %s", (text) => {
    expect(isRfc3339(text)).toBe(true);
  });

  it.each([
    "2026-02-30T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-00-10T00:00:00Z",
    "2026-01-00T00:00:00Z",
    "2026-01-15T24:00:00Z",
    "2026-01-15T09:60:00Z",
    "2026-01-15T09:30:61Z",
    "2026-01-15T12:00:60Z",
    "2016-12-31T23:59:60+01:00",
    "2026-01-15T09:30:00",
    "2026-01-15",
    "2026-01-15 09:30:00Z",
    "2026-01-15T09:30Z",
    "2026-01-15T09:30:00.Z",
    "2026-01-15T09:30:00+0100",
    "2026-01-15T09:30:00+01",
    "2026-01-15T09:30:00+24:00",
    "2026-01-15T09:30:00+01:60",
    "20260-01-15T09:30:00Z",
    "26-01-15T09:30:00Z",
    "2026-1-15T09:30:00Z",
    "２026-01-15T09:30:00Z",
    " 2026-01-15T09:30:00Z",
    "2026-01-15T09:30:00Z\n",
    "",
  ])("rejects %j", (text) => {
    expect(isRfc3339(text)).toBe(false);
    expect(parseRfc3339(text)).toBeUndefined();
  });
});

describe("instants", () => {
  it.each([
    ["2026-03-01T10:00:00+01:00", "2026-03-01T09:00:00Z"],
    ["2026-03-01T09:00:00Z", "2026-03-01T09:00:00+00:00"],
    ["2026-03-01T09:00:00-00:00", "2026-03-01t09:00:00z"],
    ["2026-03-01T09:00:00.500Z", "2026-03-01T09:00:00.5Z"],
    ["2026-03-01T00:30:00+01:00", "2026-02-28T23:30:00Z"],
    ["2024-03-01T00:30:00+01:00", "2024-02-29T23:30:00Z"],
    ["2026-01-01T05:29:00+05:29", "2026-01-01T00:00:00.000000000Z"],
  ])("%s is the same instant as %s", (a, b) => {
    expect(sameInstant(a, b)).toBe(true);
    expect(normalizeRfc3339(a)).toBe(normalizeRfc3339(b));
  });

  it.each([
    ["2026-03-01T09:00:00Z", "2026-03-01T09:00:00.000001Z"],
    ["2026-03-01T09:00:00.0000001Z", "2026-03-01T09:00:00Z"],
    ["2026-03-01T09:00:00+01:00", "2026-03-01T09:00:00Z"],
  ])("%s differs from %s", (a, b) => {
    expect(sameInstant(a, b)).toBe(false);
  });

  it("refuses to compare an invalid date-time", () => {
    expectContractError(() => sameInstant("2026-02-30T00:00:00Z", "2026-03-02T00:00:00Z"), {
      path: "$.a",
      limit: "format",
    });
  });

  it("epoch microseconds agree with Date for millisecond instants (property)", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0001-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59.999Z"),
          noInvalidDate: true,
        }),
        (date) => {
          const text = date.toISOString();
          expect(epochMicrosOf(text)).toBe(BigInt(date.getTime()) * 1000n);
          expect(formatUtcMicros(epochMicrosOf(text))).toBe(text.replace("Z", "000Z"));
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("normal spelling round-trips microsecond instants (property)", () => {
    const min = epochMicrosOf("0001-01-01T00:00:00Z");
    const max = epochMicrosOf("9999-12-31T23:59:59.999999Z");
    fc.assert(
      fc.property(fc.bigInt({ min, max }), (micros) => {
        const text = formatUtcMicros(micros);
        expect(isRfc3339(text)).toBe(true);
        expect(epochMicrosOf(text)).toBe(micros);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("a leap second sorts after 23:59:59", () => {
    expect(epochMicrosOf("2016-12-31T23:59:60Z")).toBe(
      epochMicrosOf("2016-12-31T23:59:59Z") + 1_000_000n,
    );
  });
});
