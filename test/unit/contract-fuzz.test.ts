/**
 * Fuzzed contracts: anything at all yields either a ValidatedIntent or a typed error
 * (ContractInvalidError, or advisory_rejected for advisory-looking data) — never another
 * exception, never a crash.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateIntentContract, type ValidatedIntent } from "../../src/core/contract.js";
import { ContractInvalidError, IrrevonError } from "../../src/core/errors.js";
import {
  NUM_RUNS,
  boundedJson,
  dateTimeText,
  identityTuple,
  parametersArb,
  text,
  validContract,
} from "./helpers/contracts.js";

function outcome(raw: unknown): "valid" | "invalid" {
  let intent: ValidatedIntent;
  try {
    intent = validateIntentContract(raw);
  } catch (error) {
    const typed =
      error instanceof ContractInvalidError ||
      (error instanceof IrrevonError && error.code === "advisory_rejected");
    if (!typed) throw error;
    if (error instanceof ContractInvalidError) {
      expect(typeof error.details["path"]).toBe("string");
      expect(typeof error.details["limit"]).toBe("string");
      expect(typeof error.details["value_kind"]).toBe("string");
    }
    return "invalid";
  }
  expect(intent.identity.intentId).toMatch(/^[0-9a-f]{64}$/);
  return "valid";
}

/** Near-valid contracts: one member replaced by arbitrary JSON, dropped or added. */
const nearValid = fc
  .tuple(
    identityTuple,
    parametersArb,
    fc.constantFrom(...Object.keys(validContract()), "branch_ref", "event_time", "extra"),
    fc.oneof(boundedJson, fc.anything(), dateTimeText, text(), fc.constant(undefined)),
  )
  .map(([tuple, parameters, key, value]) => {
    const contract: Record<string, unknown> = { ...validContract(), ...tuple, parameters };
    if (value === undefined) delete contract[key];
    else contract[key] = value;
    return contract;
  });

describe("contract fuzz", () => {
  it("fc.anything() → ValidatedIntent or typed error", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
          withBoxedValues: true,
        }),
        (raw) => {
          expect(outcome(raw)).toBe("invalid");
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("fc.json() text, parsed → ValidatedIntent or typed error", () => {
    fc.assert(
      fc.property(fc.json(), (jsonText) => {
        outcome(JSON.parse(jsonText));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("near-valid contracts → ValidatedIntent or typed error, and both occur", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(nearValid, (raw) => {
        seen.add(outcome(raw));
      }),
      { numRuns: NUM_RUNS },
    );
    expect(seen).toEqual(new Set(["valid", "invalid"]));
  });
});
