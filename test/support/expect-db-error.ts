/**
 * test/support/expect-db-error — asserts that a database call fails with a given IrrevonError
 * code (and SQLSTATE), never on message text.
 */
import { expect } from "vitest";
import { IrrevonError, type ErrorCode } from "../../src/core/errors.js";

/** Awaits `promise`, expecting it to reject with `code` (and `sqlstate` when given). Returns the error. */
export async function expectDbError(
  promise: Promise<unknown>,
  code: ErrorCode,
  sqlstate?: string,
): Promise<IrrevonError> {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  expect(
    caught,
    `expected ${code}${sqlstate === undefined ? "" : ` (${sqlstate})`}`,
  ).toBeInstanceOf(IrrevonError);
  const err = caught as IrrevonError;
  expect({
    code: err.code,
    sqlstate: sqlstate === undefined ? undefined : err.details["sqlstate"],
  }).toEqual({ code, sqlstate });
  return err;
}
