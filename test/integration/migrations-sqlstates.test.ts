/**
 * Every SQLSTATE the migration SQL raises is listed in RAISED_SQLSTATES and mapped to a
 * specific error code by db/sqlstate (not left to the storage_error fallback).
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, IrrevonError } from "../../src/core/errors.js";
import { MIGRATIONS } from "../../src/db/migrations.generated.js";
import { RAISED_SQLSTATES, mapDbError, mappingFor } from "../../src/db/sqlstate.js";

describe("SQLSTATE map", () => {
  const raised = new Set<string>();
  for (const m of MIGRATIONS) {
    for (const match of m.sql.matchAll(/ERRCODE\s*=\s*'([0-9A-Z]{5})'/g))
      if (match[1] !== undefined) raised.add(match[1]);
  }

  it("finds the locked functions' and the trigger's SQLSTATEs in the SQL", () => {
    for (const s of ["DT001", "DT002", "DT003", "DT004", "DT005", "DT010"])
      expect(raised.has(s)).toBe(true);
  });

  it("maps every raised SQLSTATE explicitly", () => {
    for (const s of raised) {
      expect((RAISED_SQLSTATES as readonly string[]).includes(s), s).toBe(true);
      expect(mappingFor(s).code, s).not.toBe(ErrorCode.storage_error);
    }
  });

  it("maps the ledger states, privileges and connection failures to their codes", () => {
    const cases: Array<[unknown, ErrorCode, boolean]> = [
      [{ code: "DT001", message: "x" }, "illegal_state", false],
      [{ code: "DT002" }, "stale_state", false],
      [{ code: "DT003" }, "illegal_state", false],
      [{ code: "DT004" }, "resolution_invalid", false],
      [{ code: "DT005" }, "illegal_state", false],
      [{ code: "DT010" }, "append_only_violation", false],
      [{ code: "42501" }, "privilege_denied", false],
      [{ code: "25006" }, "privilege_denied", false],
      [{ code: "08006" }, "storage_unavailable", true],
      [{ code: "57P01" }, "storage_unavailable", true],
      [{ code: "57P03" }, "storage_unavailable", true],
      [
        Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
        "storage_unavailable",
        true,
      ],
      [
        Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
        "storage_unavailable",
        true,
      ],
      [new Error("Connection terminated unexpectedly"), "storage_unavailable", true],
      [{ code: "23505", constraint: "findings_one_orphan_per_ref" }, "storage_error", false],
    ];
    for (const [input, code, retryable] of cases) {
      const e = mapDbError(input);
      expect({ code: e.code, retryable: e.retryable }).toEqual({ code, retryable });
    }
    expect(mapDbError({ code: "23505", constraint: "c1" }).details).toEqual({
      sqlstate: "23505",
      constraint: "c1",
    });
    const own = new IrrevonError("usage", "mine");
    expect(mapDbError(own)).toBe(own);
  });
});
