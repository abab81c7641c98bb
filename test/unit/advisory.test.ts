/**
 * Advisory isolation (I9, reference §9): a ClassifierProposal, its payload, a JSON-laundered
 * copy and a nested copy are all refused by core/advisory-guard, at any depth.
 */
import { describe, expect, it } from "vitest";
import { ClassifierProposal } from "../../src/advisory/classifier-proposal.js";
import {
  ADVISORY_MARKER,
  findAdvisory,
  isAdvisory,
  rejectAdvisory,
} from "../../src/core/advisory-guard.js";
import { validateIntentContract } from "../../src/core/contract.js";
import { taint } from "../../src/core/taint.js";
import {
  V2_INTENT_ID,
  expectCode,
  expectContractError,
  validContract,
} from "./helpers/contracts.js";

const proposal = new ClassifierProposal({
  subjectEffectId: V2_INTENT_ID,
  proposedAction: "COMPENSATED",
  confidence: 0.82,
  rationale: "similar order created twice",
});

class LabelledProposal extends ClassifierProposal {}

describe("advisory data is refused", () => {
  const launderedWithoutMarker = (() => {
    const copy = JSON.parse(JSON.stringify(proposal.toPayload())) as Record<string, unknown>;
    delete copy[ADVISORY_MARKER];
    return copy;
  })();

  it.each([
    ["the ClassifierProposal object", proposal, "$", "ClassifierProposal"],
    ["a subclass instance", new LabelledProposal({ ...proposal }), "$", "ClassifierProposal"],
    ["its payload", proposal.toPayload(), `$.${ADVISORY_MARKER}`, ADVISORY_MARKER],
    [
      "a JSON-laundered payload",
      JSON.parse(JSON.stringify(proposal.toPayload())) as unknown,
      `$.${ADVISORY_MARKER}`,
      ADVISORY_MARKER,
    ],
    [
      "a laundered copy without the marker",
      launderedWithoutMarker,
      "$.proposed_action",
      "proposed_action",
    ],
    [
      "the object laundered through JSON",
      JSON.parse(JSON.stringify(proposal)) as unknown,
      "$.proposedAction",
      "proposedAction",
    ],
    [
      "nested in objects and arrays",
      { a: { b: [1, { c: proposal.toPayload() }] } },
      `$.a.b[1].c.${ADVISORY_MARKER}`,
      ADVISORY_MARKER,
    ],
    ["the object nested", { evidence: [proposal] }, "$.evidence[0]", "ClassifierProposal"],
    [
      "inside a Map",
      { m: new Map([["k", proposal]]) },
      '$.m["<map value 0>"]',
      "ClassifierProposal",
    ],
    ["a bare marker", { [ADVISORY_MARKER]: true }, `$.${ADVISORY_MARKER}`, ADVISORY_MARKER],
  ])("%s", (_name, value, path, marker) => {
    expect(findAdvisory(value)).toEqual({ path, marker });
    const error = expectCode(() => rejectAdvisory(value), "advisory_rejected");
    expect(error.details).toEqual({ path, marker });
  });

  it("in an intent contract, at the top or inside parameters", () => {
    expectCode(
      () => validateIntentContract({ ...validContract(), ...proposal.toPayload() }),
      "advisory_rejected",
    );
    expectCode(
      () =>
        validateIntentContract({ ...validContract(), parameters: { hint: proposal.toPayload() } }),
      "advisory_rejected",
    );
    expectCode(() => validateIntentContract(proposal), "advisory_rejected");
  });
});

describe("ordinary data passes", () => {
  it.each([
    ["a contract", validContract()],
    ["scalars", 7],
    ["null", null],
    [
      "a cycle",
      (() => {
        const o: Record<string, unknown> = { a: 1 };
        o["self"] = o;
        return o;
      })(),
    ],
    ["a similar key", { proposed: "x", action: "y" }],
  ])("%s", (_name, value) => {
    expect(isAdvisory(value)).toBe(false);
    expect(() => rejectAdvisory(value)).not.toThrow();
  });

  it("tainted parameters are skipped, not opened", () => {
    const intent = validateIntentContract(validContract());
    expect(() => rejectAdvisory(intent)).not.toThrow();
    expect(() => rejectAdvisory({ p: taint({ proposed_action: "x" }) })).not.toThrow();
  });
});

describe("ClassifierProposal", () => {
  it("toPayload stamps the marker", () => {
    expect(proposal.toPayload()).toEqual({
      subject_effect_id: V2_INTENT_ID,
      proposed_action: "COMPENSATED",
      confidence: 0.82,
      rationale: "similar order created twice",
      __irrevon_advisory__: true,
    });
  });

  it("validates its fields", () => {
    const base = {
      subjectEffectId: V2_INTENT_ID,
      proposedAction: "COMPENSATED" as const,
      confidence: 0.5,
      rationale: "r",
    };
    expectContractError(() => new ClassifierProposal({ ...base, subjectEffectId: "x" }), {
      path: "$.subject_effect_id",
      limit: "pattern",
    });
    expectContractError(() => new ClassifierProposal({ ...base, confidence: 1.5 }), {
      path: "$.confidence",
      limit: "range",
    });
    expectContractError(() => new ClassifierProposal({ ...base, confidence: Number.NaN }), {
      path: "$.confidence",
      limit: "range",
    });
    expectContractError(
      () => new ClassifierProposal({ ...base, proposedAction: "CLOSED" as "COMPENSATED" }),
      { path: "$.proposed_action", limit: "enum" },
    );
  });
});
