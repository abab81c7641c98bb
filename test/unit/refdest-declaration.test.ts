/**
 * Capability declarations: the closed schema, cross-field rules, the digest (sha256 over JCS
 * bytes), the duration parser, and the refdest declarations per the §5.4 table.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CapabilityDeclaration } from "../../src/adapters/contract.js";
import {
  declarationDigest,
  loadDeclaration,
  parseIsoDurationSeconds,
} from "../../src/adapters/declaration.js";
import {
  REFDEST_C1_DECLARATION,
  REFDEST_C2_DECLARATION,
  REFDEST_C2_LAGGED_DECLARATION,
  REFDEST_C3_DECLARATION,
  refdestDeclaration,
} from "../../src/adapters/declarations/refdest.js";
import { DEFAULT_IDEMPOTENCY_WINDOW_SECONDS } from "../../src/refdest/index.js";

function refusal(input: unknown): { code: string; path: string } | "accepted" {
  try {
    loadDeclaration(input);
    return "accepted";
  } catch (e) {
    const err = e as { code: string; details: { path: string } };
    return { code: err.code, path: err.details.path };
  }
}

const valid = (): Record<string, unknown> =>
  JSON.parse(JSON.stringify(REFDEST_C2_DECLARATION)) as Record<string, unknown>;
function mutate(path: string[], value: unknown): Record<string, unknown> {
  const d = valid();
  let at: Record<string, unknown> = d;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>;
  const last = path[path.length - 1] as string;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return d;
}

describe("parseIsoDurationSeconds", () => {
  it.each([
    ["PT0S", 0],
    ["PT30S", 30],
    ["PT1H", 3600],
    ["PT24H", 86_400],
    ["PT1H2M3S", 3723],
    ["PT2M", 120],
    ["PT1.5S", 1.5],
  ])("%s = %d s", (text, seconds) => {
    expect(parseIsoDurationSeconds(text)).toBe(seconds);
  });

  it.each(["P1D", "PT", "PT1.5M", "PT-1S", "pt1s", "PT1S ", "P1DT1H", "1S", "", "PT1S1H"])(
    "refuses %j",
    (text) => {
      expect(() => parseIsoDurationSeconds(text)).toThrow(
        expect.objectContaining({ code: "declaration_invalid" }),
      );
    },
  );
});

describe("loadDeclaration", () => {
  it("accepts the refdest declarations and freezes the result", () => {
    for (const d of [
      REFDEST_C1_DECLARATION,
      REFDEST_C2_DECLARATION,
      REFDEST_C3_DECLARATION,
      REFDEST_C2_LAGGED_DECLARATION,
    ]) {
      expect(refusal(d)).toBe("accepted");
      expect(Object.isFrozen(d)).toBe(true);
      expect(Object.isFrozen(d.queryable.by)).toBe(true);
    }
  });

  it.each([
    ["an unknown top-level member", ["surprise"], true, "/"],
    ["an unknown nested member", ["idempotency", "surprise"], 1, "/idempotency"],
    ["a missing required member", ["citations"], undefined, "/"],
    ["an empty citation list", ["citations"], [], "/citations"],
    ["a citation that is not a URI", ["citations"], ["see the docs"], "/citations/0"],
    ["a bad tier", ["tier"], "C4", "/tier"],
    ["a bad lag duration", ["consistency", "listing_lag"], "1 hour", "/consistency/listing_lag"],
    [
      "a day-based lag",
      ["consistency", "status_settlement_lag"],
      "P1D",
      "/consistency/status_settlement_lag",
    ],
    ["an unknown query key", ["queryable", "by"], ["destination_ref", "email"], "/queryable/by/1"],
    ["a bad evidence quality", ["evidence_quality"], "XX", "/evidence_quality"],
    ["an unknown attribution mode", ["attribution", "modes"], ["psychic"], "/attribution/modes/0"],
    [
      "attribution modes out of order",
      ["attribution", "modes"],
      ["stable-id-projection", "exact"],
      "/attribution/modes",
    ],
    [
      "C2 claiming idempotency",
      ["idempotency"],
      { supported: true, window: "PT24H", replay_semantics: "x" },
      "/tier",
    ],
    ["a window without support", ["idempotency", "window"], "PT1H", "/idempotency"],
    ["queryable with no keys", ["queryable", "by"], [], "/queryable/by"],
    [
      "client_ref queries with nowhere to stamp it",
      ["client_ref_field"],
      null,
      "/client_ref_field",
    ],
  ])("refuses %s with declaration_invalid at its path", (_name, path, value, pointer) => {
    expect(refusal(mutate(path as string[], value))).toEqual({
      code: "declaration_invalid",
      path: pointer,
    });
  });

  it("refuses a C3 that claims to be listable, and non-objects", () => {
    const c3 = JSON.parse(JSON.stringify(REFDEST_C3_DECLARATION)) as Record<string, unknown>;
    c3["list_queryable"] = true;
    expect(refusal(c3)).toEqual({ code: "declaration_invalid", path: "/tier" });
    expect(refusal(null)).toEqual({ code: "declaration_invalid", path: "/" });
    expect(refusal(undefined)).toEqual({ code: "declaration_invalid", path: "/" });
    expect(refusal([])).toEqual({ code: "declaration_invalid", path: "/" });
  });

  it("accepts a declared stable-id query key", () => {
    const d = valid();
    (d["queryable"] as Record<string, unknown>)["by"] = [
      "destination_ref",
      "stable_id:order_number",
    ];
    expect(refusal(d)).toBe("accepted");
  });
});

describe("declarationDigest", () => {
  it("is sha256 over the RFC 8785 bytes, independent of member order", () => {
    const d = REFDEST_C3_DECLARATION;
    const reverse = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverse)
        : typeof v === "object" && v !== null
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, c]) => [k, reverse(c)]),
            )
          : v;
    const reordered = reverse(d) as CapabilityDeclaration;
    expect(Object.keys(reordered)[0]).not.toBe(Object.keys(d)[0]);
    expect(declarationDigest(reordered)).toBe(declarationDigest(d));
    expect(declarationDigest(d)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("matches a hand-canonicalised small declaration", () => {
    const tiny = { b: [1, "é"], a: { d: null, c: true } } as unknown as CapabilityDeclaration;
    const expected =
      "sha256:" +
      createHash("sha256").update('{"a":{"c":true,"d":null},"b":[1,"é"]}', "utf8").digest("hex");
    expect(declarationDigest(tiny)).toBe(expected);
  });

  it("differs between the PT0S and the lagged profile", () => {
    expect(declarationDigest(REFDEST_C2_DECLARATION)).not.toBe(
      declarationDigest(REFDEST_C2_LAGGED_DECLARATION),
    );
  });
});

describe("refdest declarations (§5.4 table)", () => {
  it("C1: keyed PT24H, query by ref and client_ref, list, PT0S lags, VF", () => {
    const d = REFDEST_C1_DECLARATION;
    expect(d).toMatchObject({
      adapter: "refdest-c1",
      tier: "C1",
      client_ref_field: "client_ref",
      list_queryable: true,
      evidence_quality: "VF",
    });
    expect(d.idempotency).toMatchObject({ supported: true, window: "PT24H" });
    expect(d.queryable).toEqual({ supported: true, by: ["destination_ref", "client_ref"] });
    expect(d.consistency).toEqual({ status_settlement_lag: "PT0S", listing_lag: "PT0S" });
    expect(d.attribution?.modes).toEqual(["exact", "stable-id-projection"]);
  });

  it("the C1 window the declaration states is the window the refdest enforces", () => {
    const window = REFDEST_C1_DECLARATION.idempotency.window ?? "";
    expect(parseIsoDurationSeconds(window)).toBe(DEFAULT_IDEMPOTENCY_WINDOW_SECONDS);
  });

  it("C2: no idempotency, queryable, listable, PT0S lags", () => {
    const d = REFDEST_C2_DECLARATION;
    expect(d.idempotency).toEqual({ supported: false, window: null, replay_semantics: null });
    expect(d.queryable.by).toEqual(["destination_ref", "client_ref"]);
    expect(d.consistency).toEqual({ status_settlement_lag: "PT0S", listing_lag: "PT0S" });
  });

  it("C3: nothing queryable, null lags, attribution impossible", () => {
    const d = REFDEST_C3_DECLARATION;
    expect(d.queryable).toEqual({ supported: false, by: [] });
    expect(d).toMatchObject({ client_ref_field: null, list_queryable: false });
    expect(d.consistency).toEqual({ status_settlement_lag: null, listing_lag: null });
    expect(d.attribution?.modes).toEqual(["impossible"]);
  });

  it("the lagged profile states its lag in both consistency fields", () => {
    expect(REFDEST_C2_LAGGED_DECLARATION.consistency).toEqual({
      status_settlement_lag: "PT30S",
      listing_lag: "PT30S",
    });
    expect(REFDEST_C2_LAGGED_DECLARATION.adapter).toBe("refdest-c2-lag30s");
    expect(refdestDeclaration("C1", { lagSeconds: 45 }).consistency.listing_lag).toBe("PT45S");
    expect(() => refdestDeclaration("C2", { lagSeconds: -1 })).toThrow(
      expect.objectContaining({ code: "declaration_invalid" }),
    );
  });
});
