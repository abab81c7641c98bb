/**
 * Every duration and number an operator or adapter author hands us is bounded at validation
 * (issue 10 item 9a): a declaration lag like `PT9999999999H` used to load and then make every
 * reconcile throw an untyped RangeError. Refusals name the field and the limit.
 */
import { describe, expect, it } from "vitest";
import {
  MAX_DURATION_SECONDS,
  loadDeclaration,
  parseIsoDurationSeconds,
} from "../../src/adapters/declaration.js";
import { REFDEST_C1_DECLARATION } from "../../src/adapters/declarations/refdest.js";
import { resolveEngineConfig } from "../../src/engine/config.js";
import { expectCode } from "./helpers/contracts.js";

const base = (): Record<string, unknown> =>
  JSON.parse(JSON.stringify(REFDEST_C1_DECLARATION)) as Record<string, unknown>;

describe("declaration durations are bounded", () => {
  it("the bound is 366 days", () => {
    expect(MAX_DURATION_SECONDS).toBe(366 * 86_400);
    expect(parseIsoDurationSeconds("PT8784H")).toBe(MAX_DURATION_SECONDS);
  });

  it.each([
    ["/consistency/status_settlement_lag", "PT9999999999H"],
    ["/consistency/listing_lag", "PT8784H1S"],
    ["/idempotency/window", `PT${"9".repeat(400)}S`],
    ["/consistency/status_settlement_lag", "PT527041M"],
  ])("%s = %s → declaration_invalid naming the field and max_duration_seconds", (path, lag) => {
    const decl = base();
    const [, group, field] = path.split("/") as [string, string, string];
    (decl[group] as Record<string, unknown>)[field] = lag;
    const error = expectCode(() => loadDeclaration(decl), "declaration_invalid");
    expect(error.details["path"]).toBe(path);
    expect(error.details["limit"]).toBe("max_duration_seconds");
    expect(error.details["limit_value"]).toBe(MAX_DURATION_SECONDS);
  });

  it("parseIsoDurationSeconds refuses a duration beyond the bound", () => {
    const error = expectCode(() => parseIsoDurationSeconds("PT9999999999H"), "declaration_invalid");
    expect(error.details["limit"]).toBe("max_duration_seconds");
  });

  it("a declaration nested far too deep is refused at load, naming the limit", () => {
    let value: unknown = 0;
    for (let i = 0; i < 100_000; i += 1) value = { x: value };
    const error = expectCode(
      () => loadDeclaration({ ...base(), attribution: value }),
      "declaration_invalid",
    );
    expect(error.details["limit"]).toBe("max_depth");
  });
});

describe("engine config knobs are bounded", () => {
  it.each([
    ["dispatchDeadlineMs", 2 ** 31],
    ["leaseTtlMs", 1e300],
    ["rereadGapSeconds", 1e13],
    ["backoffMaxSeconds", 1e15],
    ["orphanGraceSeconds", MAX_DURATION_SECONDS + 1],
    ["maxClockSkewMs", 2 ** 31],
    ["sweepMaxPages", 1e12],
  ])("%s = %d → config_invalid naming the field and its max", (field, value) => {
    const error = expectCode(
      () =>
        resolveEngineConfig({
          [field]: value,
          leaseTtlMs: field === "leaseTtlMs" ? value : 2 ** 31 - 1,
        }),
      "config_invalid",
    );
    expect(error.details["field"]).toBe(field);
    expect(typeof error.details["max"]).toBe("number");
  });

  it("the defaults are inside every bound", () => {
    expect(() => resolveEngineConfig()).not.toThrow();
  });
});
