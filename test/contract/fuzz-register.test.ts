/**
 * Hostile contracts through the engine's `register` on a real ledger (PGlite): anything at
 * all is either registered (a RegisterResult) or refused with a typed error whose details
 * name the problem — never another exception — and a refusal writes nothing (every ledger
 * table's row count is unchanged). Control: the same property run against a registrar that
 * writes before it validates must find a counterexample, so the row-count check can fail.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { RefdestAdapter } from "../../src/adapters/refdest-adapter.js";
import type { IntentContractInput } from "../../src/core/contract-input.js";
import { validateIntentContract } from "../../src/core/contract.js";
import { isIrrevonError } from "../../src/core/errors.js";
import type { Db } from "../../src/db/db.js";
import { openIrrevon, type Irrevon } from "../../src/engine/irrevon.js";
import { createInProcessTransport, createRefdest } from "../../src/refdest/index.js";
import { openTestLedger, type TestLedger } from "../support/databases.js";
import {
  boundedJson,
  dateTimeText,
  identityTuple,
  parametersArb,
  text,
  validContract,
} from "../unit/helpers/contracts.js";

const RUNS = process.env["IRREVON_PROOF_SCALE"] === "full" ? 2_000 : 150;

/** Errors a caller may get from register for bad input; anything else is a defect. */
const INPUT_ERRORS = new Set([
  "contract_invalid",
  "capability_unsupported",
  "identity_conflict",
  "identity_collision",
  "advisory_rejected",
  "taint_violation",
]);

const LEDGER_TABLES = [
  "effect_records",
  "parameter_variants",
  "effect_executions",
  "effect_transitions",
  "authorities",
  "effect_authorities",
  "gate_decisions",
  "dispatch_attempts",
  "dispatch_receipts",
  "findings",
  "finding_resolutions",
] as const;

async function rowCounts(db: Db): Promise<string> {
  const { rows } = await db.query<Record<string, number>>(
    `SELECT ${LEDGER_TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(", ")}`,
  );
  return JSON.stringify(rows[0]);
}

/** Hostile leaves: NaN, ±Infinity, -0, huge and lone-surrogate strings, deep nesting, BigInt. */
const hostileLeaf = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 2 ** 80, 9007199254740993n, null, undefined),
  fc.constant("\ud800"),
  fc.constant("x".repeat(70_000)),
  fc.integer({ min: 1, max: 60 }).map((d) => {
    let v: unknown = "leaf";
    for (let i = 0; i < d; i++) v = { d: v };
    return v;
  }),
  fc.constant(Array.from({ length: 10_001 }, () => 0)),
);

/** Near-valid contracts: one member replaced, dropped or added; sometimes a hostile payload. */
const hostileContract = fc
  .tuple(
    identityTuple,
    fc.oneof(parametersArb, hostileLeaf),
    fc.constantFrom(...Object.keys(validContract()), "branch_ref", "event_time", "extra"),
    fc.oneof(boundedJson, fc.anything(), dateTimeText, text(), hostileLeaf),
    fc.boolean(),
  )
  .map(([tuple, parameters, key, value, drop]) => {
    const contract: Record<string, unknown> = { ...validContract(), ...tuple, parameters };
    if (drop) delete contract[key];
    else contract[key] = value;
    return contract;
  });

const anyInput = fc.oneof(
  { weight: 4, arbitrary: hostileContract },
  { weight: 1, arbitrary: fc.anything({ withBigInt: true, withNullPrototype: true }) },
  { weight: 1, arbitrary: hostileLeaf },
);

type Register = (raw: unknown) => Promise<unknown>;

/** The property: registered, or refused with a typed error naming the problem and no write. */
function registerProperty(db: Db, register: Register): fc.IAsyncPropertyWithHooks<[unknown]> {
  return fc.asyncProperty(anyInput, async (raw) => {
    const before = await rowCounts(db);
    let result: unknown;
    try {
      result = await register(raw);
    } catch (e) {
      if (!isIrrevonError(e) || !INPUT_ERRORS.has(e.code)) throw e;
      if (e.code === "contract_invalid") expect(typeof e.details["path"]).toBe("string");
      expect(await rowCounts(db)).toBe(before);
      return;
    }
    expect(result).toMatchObject({ effectId: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
  });
}

describe("fuzz: contracts through register (PGlite ledger)", () => {
  let ledger: TestLedger;
  let irrevon: Irrevon;

  beforeAll(async () => {
    ledger = await openTestLedger("pglite");
    const refdest = createRefdest({ tier: "C2", seed: 1 });
    irrevon = await openIrrevon({
      database: ledger.app,
      adapters: [
        new RefdestAdapter({
          baseUrl: "http://127.0.0.1:9",
          declaration: refdestDeclaration("C2"),
          transport: createInProcessTransport(refdest),
        }),
      ],
    });
  });
  afterAll(async () => {
    await irrevon?.close();
    await ledger?.close();
  });

  it("anything is registered or refused with a typed error, and a refusal writes nothing", async () => {
    await fc.assert(
      registerProperty(ledger.superuser, (raw) => irrevon.register(raw as IntentContractInput)),
      { numRuns: RUNS },
    );
    // The run also registered real contracts (the property is not vacuous).
    const { rows } = await ledger.superuser.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM effect_records",
    );
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
  });

  it("control: a registrar that writes before it validates is caught by the same property", async () => {
    const writeFirst: Register = async (raw) => {
      await ledger.app.query(
        "INSERT INTO authorities (authority_ref, scope, stamped_at) VALUES ('naive', 'naive', now())",
      );
      return { effectId: validateIntentContract(raw).identity.intentId };
    };
    const outcome = await fc.check(registerProperty(ledger.superuser, writeFirst), {
      numRuns: RUNS,
    });
    expect(outcome.failed).toBe(true);
  });
});
