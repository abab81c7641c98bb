/**
 * Every capability-declaration refusal names the field (JSON pointer), the allowed values or
 * limit, and the fix (issue 13 item 2): a bad lag used to say only "must be null".
 */
import { describe, expect, it } from "vitest";
import { loadDeclaration } from "../../src/adapters/declaration.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
} from "../../src/adapters/declarations/refdest.js";
import { IrrevonError } from "../../src/core/errors.js";

type Json = Record<string, unknown>;
const c2 = (): Json => JSON.parse(JSON.stringify(REFDEST_C2_DECLARATION)) as Json;
const c1 = (): Json => JSON.parse(JSON.stringify(REFDEST_C1_DECLARATION)) as Json;

function set(d: Json, path: string, value: unknown): Json {
  const keys = path.split("/").slice(1);
  let at = d;
  for (const k of keys.slice(0, -1)) at = at[k] as Json;
  const last = keys[keys.length - 1] as string;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return d;
}

function refusal(input: unknown): IrrevonError {
  try {
    loadDeclaration(input);
  } catch (e) {
    if (e instanceof IrrevonError && e.code === "declaration_invalid") return e;
    throw e;
  }
  throw new Error("declaration was accepted");
}

describe("declaration refusals name the field, the allowed values and the fix", () => {
  it.each<[string, Json, string, RegExp]>([
    [
      "a day-based lag",
      set(c2(), "/consistency/status_settlement_lag", "P1D"),
      "/consistency/status_settlement_lag",
      /PT\[nH\]\[nM\]/,
    ],
    [
      "a numeric listing lag",
      set(c2(), "/consistency/listing_lag", 30),
      "/consistency/listing_lag",
      /null \(unbounded\)/,
    ],
    ["a bad tier", set(c2(), "/tier", "C4"), "/tier", /"C1".*"C2".*"C3"/],
    [
      "a bad evidence quality",
      set(c2(), "/evidence_quality", "XX"),
      "/evidence_quality",
      /"VF".*"EI"/,
    ],
    [
      "an unknown query key",
      set(c2(), "/queryable/by", ["destination_ref", "email"]),
      "/queryable/by/1",
      /"destination_ref", "client_ref" or "stable_id:<name>"/,
    ],
    [
      "a duplicate query key",
      set(c2(), "/queryable/by", ["client_ref", "client_ref"]),
      "/queryable/by",
      /distinct/,
    ],
    [
      "an unknown attribution mode",
      set(c2(), "/attribution/modes", ["psychic"]),
      "/attribution/modes/0",
      /"exact"/,
    ],
    ["a bad adapter id", set(c2(), "/adapter", "Acme Adapter"), "/adapter", /a-z 0-9/],
    ["an empty citation list", set(c2(), "/citations", []), "/citations", /at least one URI/],
    [
      "a citation that is not a URI",
      set(c2(), "/citations", ["see the docs"]),
      "/citations/0",
      /scheme:rest/,
    ],
    ["a missing member", set(c2(), "/citations", undefined), "/citations", /at least one URI/],
    [
      "a missing nested member",
      set(c2(), "/consistency/listing_lag", undefined),
      "/consistency/listing_lag",
      /duration/,
    ],
    [
      "an unknown member",
      set(c2(), "/surprise", 1),
      "/surprise",
      /only the members adapter, destination/,
    ],
    [
      "an unknown nested member",
      set(c2(), "/idempotency/ttl", "PT1H"),
      "/idempotency/ttl",
      /only the members supported, window, replay_semantics/,
    ],
    [
      "a lag beyond 366 days",
      set(c2(), "/consistency/listing_lag", "PT9000H"),
      "/consistency/listing_lag",
      /366 days/,
    ],
    [
      "a C2 claiming idempotency",
      set(c2(), "/idempotency", { supported: true, window: "PT24H", replay_semantics: "x" }),
      "/tier",
      /"C1" iff idempotency.supported is true/,
    ],
    [
      "a C1 without a window",
      set(c1(), "/idempotency/window", null),
      "/idempotency/window",
      /"PT24H"/,
    ],
    [
      "a window without support",
      set(c2(), "/idempotency/window", "PT1H"),
      "/idempotency",
      /window: null, replay_semantics: null/,
    ],
    [
      "queryable with no keys",
      set(c2(), "/queryable/by", []),
      "/queryable/by",
      /at least one key iff/,
    ],
    [
      "client_ref queries with nowhere to stamp",
      set(c2(), "/client_ref_field", null),
      "/client_ref_field",
      /field the adapter stamps/,
    ],
    [
      "a listable C3",
      set(
        set(
          set(set(c2(), "/tier", "C3"), "/queryable", { supported: false, by: [] }),
          "/client_ref_field",
          null,
        ),
        "/list_queryable",
        true,
      ),
      "/tier",
      /list_queryable = false/,
    ],
    [
      "modes out of order",
      set(c2(), "/attribution/modes", ["stable-id-projection", "exact"]),
      "/attribution/modes",
      /exact, stable-id-projection, metadata/,
    ],
  ])("%s", (_name, input, field, allowed) => {
    const e = refusal(input);
    expect(e.details["field"]).toBe(field);
    expect(String(e.details["allowed"])).toMatch(allowed);
    expect(String(e.details["fix"]).length).toBeGreaterThan(10);
    expect(e.message).toContain(`invalid at ${field}: `);
    expect(e.message).toContain(`; allowed: ${String(e.details["allowed"])}`);
    expect(e.message).toContain(`; fix: ${String(e.details["fix"])}`);
    expect(e.message).not.toMatch(/must be null|must be equal to one of the allowed values/);
  });

  it("a bad lag names the value it got and how to write days", () => {
    const e = refusal(set(c2(), "/consistency/status_settlement_lag", "P1D"));
    expect(e.details["reason"]).toBe('got "P1D"');
    expect(e.details["fix"]).toMatch(/P1D → PT24H/);
  });

  it("an over-long lag keeps the limit in the details", () => {
    const e = refusal(set(c2(), "/consistency/listing_lag", "PT9000H"));
    expect(e.details["limit"]).toBe("max_duration_seconds");
    expect(e.details["limit_value"]).toBe(366 * 86_400);
  });

  it("the tier fix depends on which side is wrong", () => {
    const claimsKey = refusal(
      set(c2(), "/idempotency", { supported: true, window: "PT1H", replay_semantics: "x" }),
    );
    expect(claimsKey.details["fix"]).toMatch(/set tier to "C1"/);
    const c1NoKey = set(c1(), "/idempotency", {
      supported: false,
      window: null,
      replay_semantics: null,
    });
    expect(refusal(c1NoKey).details["fix"]).toMatch(/set tier to "C2" or "C3"/);
  });

  it("modes out of order: the fix gives the right order", () => {
    const e = refusal(set(c2(), "/attribution/modes", ["metadata", "exact"]));
    expect(e.details["fix"]).toBe("reorder to exact, metadata");
  });

  it("a non-object names the root", () => {
    const e = refusal(42);
    expect(e.details["field"]).toBe("/");
    expect(e.details["reason"]).toBe("got 42");
  });
});
