/** Fault schedule rules: validation names the bad field; matching, consumption and applicability. */
import { describe, expect, it } from "vitest";
import {
  FaultSchedule,
  parseFaultEntries,
  type MatchContext,
} from "../../src/refdest/fault-schedule.js";

const ctx = (over: Partial<MatchContext> = {}): MatchContext => ({
  op: "create",
  seq: 1,
  clientRef: "c1",
  effectType: "t",
  ...over,
});

function field(raw: unknown): unknown {
  try {
    parseFaultEntries(raw);
  } catch (e) {
    return (e as { code: string; details: { field: string } }).code === "config_invalid"
      ? (e as { details: { field: string } }).details.field
      : "wrong code";
  }
  return "accepted";
}

describe("parseFaultEntries", () => {
  it("accepts every fault kind in its documented shape", () => {
    const entries = parseFaultEntries([
      { fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } },
      { fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "notify" }, once: true },
      { fault: "ERROR_5XX_NO_COMMIT", match: { nth_request: 3 } },
      { fault: "ERROR_5XX_AFTER_COMMIT", match: { client_ref: "x" } },
      { fault: "DELAY", match: { effect_type: "t" }, param: { ms: 10, commit: false } },
      { fault: "DELAY", match: { op: "get" } },
      { fault: "DUPLICATE_ACCEPT", match: { op: "create" }, once: false },
      { fault: "THROTTLE_429", match: { op: "list" } },
      { fault: "READ_LAG", match: { op: "create" }, param: { seconds: 30 } },
      { fault: "LIST_FILTER_QUIRK", match: { op: "oob" } },
      { fault: "ENRICHMENT_QUIRK", match: { op: "create" }, param: {} },
    ]);
    expect(entries).toHaveLength(11);
  });

  it("names the offending field of a bad entry", () => {
    expect(field([{ fault: "NOPE", match: { op: "create" } }])).toBe("entries.0.fault");
    expect(field([{ fault: "DELAY", match: { op: "create" }, param: { ms: -1 } }])).toBe(
      "entries.0.param.ms",
    );
    expect(field([{ fault: "DELAY", match: { op: "create" }, param: { ms: 999_999 } }])).toBe(
      "entries.0.param.ms",
    );
    expect(field([{ fault: "READ_LAG", match: { op: "create" } }])).toBe("entries.0.param");
    expect(
      field([
        { fault: "THROTTLE_429", match: { op: "create" } },
        { fault: "THROTTLE_429", match: { op: "fly" } },
      ]),
    ).toBe("entries.1.match.op");
    expect(field([{ fault: "THROTTLE_429", match: { op: "create", extra: 1 } }])).toBe(
      "entries.0.match.extra",
    );
    expect(field([{ fault: "THROTTLE_429", match: { nth_request: 0 } }])).toBe(
      "entries.0.match.nth_request",
    );
    expect(field([{ fault: "THROTTLE_429" }])).toBe("entries.0.match");
    expect(field([{ fault: "THROTTLE_429", match: {}, param: { x: 1 } }])).toBe(
      "entries.0.param.x",
    );
    expect(field("not a list")).toBe("entries");
  });
});

describe("FaultSchedule.take", () => {
  it("an empty match never fires", () => {
    const s = new FaultSchedule();
    s.add(parseFaultEntries([{ fault: "THROTTLE_429", match: {} }]));
    expect(s.take(ctx())).toBeNull();
    expect(s.pendingCount).toBe(1);
  });

  it("the first unconsumed matching entry wins and a once entry is consumed", () => {
    const s = new FaultSchedule();
    s.add(
      parseFaultEntries([
        { fault: "THROTTLE_429", match: { client_ref: "other" } },
        { fault: "ERROR_5XX_NO_COMMIT", match: { op: "create" } },
        { fault: "DUPLICATE_ACCEPT", match: { op: "create" } },
      ]),
    );
    expect(s.take(ctx())?.fault).toBe("ERROR_5XX_NO_COMMIT");
    expect(s.take(ctx())?.fault).toBe("DUPLICATE_ACCEPT");
    expect(s.take(ctx())).toBeNull();
    expect(s.snapshot().map((e) => e.consumed)).toEqual([false, true, true]);
  });

  it("once:false fires every time", () => {
    const s = new FaultSchedule();
    s.add(parseFaultEntries([{ fault: "THROTTLE_429", match: { op: "list" }, once: false }]));
    expect(s.take(ctx({ op: "list" }))?.fault).toBe("THROTTLE_429");
    expect(s.take(ctx({ op: "list" }))?.fault).toBe("THROTTLE_429");
  });

  it("every named key must match; nth_request is the request sequence number", () => {
    const s = new FaultSchedule();
    s.add(
      parseFaultEntries([
        { fault: "THROTTLE_429", match: { op: "create", nth_request: 2, effect_type: "t" } },
      ]),
    );
    expect(s.take(ctx({ seq: 1 }))).toBeNull();
    expect(s.take(ctx({ seq: 2, effectType: "u" }))).toBeNull();
    expect(s.take(ctx({ seq: 2 }))?.fault).toBe("THROTTLE_429");
  });

  it("an entry only matches operations its fault can act on (a status query does not eat a READ_LAG)", () => {
    const s = new FaultSchedule();
    s.add(
      parseFaultEntries([
        { fault: "READ_LAG", match: { client_ref: "c1" }, param: { seconds: 5 } },
      ]),
    );
    expect(s.take(ctx({ op: "query" }))).toBeNull();
    expect(s.take(ctx({ op: "create" }))).toEqual({ fault: "READ_LAG", lagSeconds: 5 });
  });

  it("resolves DELAY defaults (2000 ms, commit true)", () => {
    const s = new FaultSchedule();
    s.add(parseFaultEntries([{ fault: "DELAY", match: { op: "create" } }]));
    expect(s.take(ctx())).toEqual({ fault: "DELAY", delayMs: 2000, commit: true });
  });

  it("replace empties the schedule first", () => {
    const s = new FaultSchedule();
    s.add(parseFaultEntries([{ fault: "THROTTLE_429", match: { op: "create" } }]));
    s.add(parseFaultEntries([{ fault: "DUPLICATE_ACCEPT", match: { op: "create" } }]), true);
    expect(s.take(ctx())?.fault).toBe("DUPLICATE_ACCEPT");
  });
});
