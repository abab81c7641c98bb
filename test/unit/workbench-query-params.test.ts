/**
 * Query parsing of the workbench lists: every bad parameter is a query_invalid answer that
 * names it; enumerated filters take lists; limit defaults and clamps; cursors round-trip.
 */
import { describe, expect, it } from "vitest";
import { decodeEffectsCursor, encodeEffectsCursor } from "../../src/workbench/cursor.js";
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  parseEffectsQuery,
  parseFindingsQuery,
  parseNoQuery,
} from "../../src/workbench/query-params.js";

const q = (s: string): URLSearchParams => new URLSearchParams(s);

function rejected(
  result:
    | ReturnType<typeof parseEffectsQuery>
    | ReturnType<typeof parseFindingsQuery>
    | ReturnType<typeof parseNoQuery>,
): unknown {
  if (result.ok) throw new Error("expected a rejection");
  expect(result.error.code).toBe("query_invalid");
  return result.error.details["parameter"];
}

describe("workbench query parameters", () => {
  it("defaults, lists and clamps", () => {
    const r = parseEffectsQuery(
      q(
        "lifecycle=AMBIGUOUS,SETTLED_COMMITTED&lifecycle=PERSISTED&classification=UNRECONCILED&limit=9999",
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.lifecycle).toEqual(["AMBIGUOUS", "SETTLED_COMMITTED", "PERSISTED"]);
    expect(r.value.classification).toEqual(["UNRECONCILED"]);
    expect(r.value.limit).toBe(MAX_LIMIT);
    const d = parseEffectsQuery(q(""));
    expect(d.ok && d.value.limit).toBe(DEFAULT_LIMIT);
  });

  it("treats empty values as not given (what a form sends for 'any')", () => {
    const r = parseEffectsQuery(q("lifecycle=&scope=&from="));
    expect(r.ok && r.value).toEqual({
      limit: DEFAULT_LIMIT,
      scope: undefined,
      lifecycle: undefined,
      classification: undefined,
      effectType: undefined,
      effectClass: undefined,
      from: undefined,
      to: undefined,
      cursor: undefined,
    });
  });

  it.each([
    ["lifecycle=DONE", "lifecycle"],
    ["classification=MAYBE", "classification"],
    ["effect_class=UNDOABLE", "effect_class"],
    ["limit=0", "limit"],
    ["limit=-1", "limit"],
    ["limit=1.5", "limit"],
    ["limit=abc", "limit"],
    ["from=yesterday", "from"],
    ["to=2026-02-30T00:00:00Z", "to"],
    ["cursor=not-a-cursor!", "cursor"],
    ["cursor=eyJ4IjoxfQ", "cursor"],
    ["scope=a&scope=b", "scope"],
    ["bogus=1", "bogus"],
    [`scope=${"x".repeat(513)}`, "scope"],
  ])("effects: %s names %s", (query, parameter) => {
    expect(rejected(parseEffectsQuery(q(query)))).toBe(parameter);
  });

  it.each([
    ["classification=UNRECONCILED", "classification"],
    ["resolution_status=DONE", "resolution_status"],
    ["subject_effect_id=ABC", "subject_effect_id"],
    ["cursor=0", "cursor"],
    ["cursor=12a", "cursor"],
    ["lifecycle=PERSISTED", "lifecycle"],
  ])("findings: %s names %s", (query, parameter) => {
    expect(rejected(parseFindingsQuery(q(query)))).toBe(parameter);
  });

  it("detail routes take no parameters", () => {
    expect(parseNoQuery(q("")).ok).toBe(true);
    expect(rejected(parseNoQuery(q("reveal=1")))).toBe("reveal");
  });

  it("round-trips an effects cursor and refuses a tampered one", () => {
    const cursor = { createdAt: "2026-03-01T10:00:00.123456Z", effectId: "ab".repeat(32) };
    const text = encodeEffectsCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeEffectsCursor(text)).toEqual(cursor);
    const tampered = Buffer.from(JSON.stringify({ c: cursor.createdAt, id: "x" }), "utf8").toString(
      "base64url",
    );
    expect(decodeEffectsCursor(tampered)).toBeNull();
    const r = parseEffectsQuery(q(`cursor=${text}`));
    expect(r.ok && r.value.cursor).toEqual(cursor);
  });
});
