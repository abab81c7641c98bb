/**
 * The lease/deadline rule of the engine config: a claim asks for 2 × deadline of lease and the
 * dispatcher refuses to send with a deadline or less left, so a lease shorter than
 * 2 × deadline + the adapter overrun grace (1000 ms) would turn every dispatch into a silent
 * LOST (not sent). Such a config is refused at open with config_invalid naming the field, the
 * limit and the fix — for the dispatch deadline and for the probe deadline.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_ENGINE_CONFIG, resolveEngineConfig } from "../../src/engine/config.js";

function refusal(partial: Parameters<typeof resolveEngineConfig>[0]): unknown {
  try {
    resolveEngineConfig(partial);
  } catch (e) {
    return e;
  }
  return null;
}

describe("engine config: lease covers the deadlines", () => {
  it("refuses leaseTtlMs = dispatchDeadlineMs + 1 (every dispatch would be LOST not_sent)", () => {
    expect(
      refusal({ dispatchDeadlineMs: 2_000, probeDeadlineMs: 500, leaseTtlMs: 2_001 }),
    ).toMatchObject({
      code: "config_invalid",
      details: {
        field: "leaseTtlMs",
        value: 2_001,
        min: 5_000,
        related_field: "dispatchDeadlineMs",
        fix: { leaseTtlMs: 5_000, dispatchDeadlineMs: 500 },
      },
    });
  });

  it("refuses a lease one millisecond short of 2 × deadline + 1000, accepts it exactly", () => {
    expect(
      refusal({ dispatchDeadlineMs: 2_000, probeDeadlineMs: 500, leaseTtlMs: 4_999 }),
    ).toMatchObject({ code: "config_invalid", details: { field: "leaseTtlMs", min: 5_000 } });
    expect(
      resolveEngineConfig({ dispatchDeadlineMs: 2_000, probeDeadlineMs: 500, leaseTtlMs: 5_000 })
        .leaseTtlMs,
    ).toBe(5_000);
  });

  it("applies the same rule to the probe deadline", () => {
    expect(
      refusal({ dispatchDeadlineMs: 500, probeDeadlineMs: 5_000, leaseTtlMs: 3_000 }),
    ).toMatchObject({
      code: "config_invalid",
      details: { field: "leaseTtlMs", min: 11_000, related_field: "probeDeadlineMs" },
    });
  });

  it("the documented defaults satisfy the rule", () => {
    expect(resolveEngineConfig()).toEqual(DEFAULT_ENGINE_CONFIG);
  });
});
