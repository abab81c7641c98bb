/**
 * What an operator or a caller writes into the append-only ledger outside a contract is bounded
 * (src/core/caller-text.ts), on both backends: a resolution's evidence object (64 KiB of names
 * and strings), a human settlement's `decidedBy` (256 characters) and `note` (2 000). Beyond a
 * limit the call is refused with `resolution_invalid` naming the field and the limit, before
 * anything is read or written: no resolution, transition or finding appears.
 */
import { afterEach, expect, it } from "vitest";
import { IrrevonError } from "../../src/core/errors.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { countRows } from "../support/ledger-fixtures.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

async function refusal(p: Promise<unknown>): Promise<IrrevonError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(IrrevonError);
  return e as IrrevonError;
}

describeEachBackend("caller text and evidence bounds", (backend) => {
  let f: EngineFixture | undefined;
  afterEach(async () => {
    if (f !== undefined) await expectAuditClean(f.ledger);
    await f?.close();
    f = undefined;
  });

  it("an oversized resolution evidence, settlement note or decider is refused and writes nothing", async () => {
    f = await openEngineFixture(backend, { config: { rereadGapSeconds: 0 } });
    // A LOST finding a resolution could act on, and an AMBIGUOUS effect a human could settle:
    // both calls would write, so "nothing written" is the bound's doing.
    const lost = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_BEFORE_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(lost.effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    f.clock.advance(5_000);
    const reconciled = await f.irrevon.reconcile(lost.effectId);
    expect(reconciled).toMatchObject({ status: "failed" });
    const findingId = reconciled.status === "failed" ? (reconciled.findingId ?? 0) : 0;
    const { effectId } = await f.irrevon.register(orderContract());
    f.refdest.schedule([{ fault: "DROP_RESPONSE_AFTER_COMMIT", match: { op: "create" } }]);
    expect(await f.irrevon.dispatch(effectId)).toMatchObject({ lifecycle: "AMBIGUOUS" });
    const before = {
      resolutions: await countRows(f.ledger.superuser, "finding_resolutions"),
      transitions: await countRows(f.ledger.superuser, "effect_transitions"),
      findings: await countRows(f.ledger.superuser, "findings"),
    };

    const big = await refusal(
      f.irrevon.resolve(findingId, "ESCALATED_HUMAN", { note: "ok", blob: "x".repeat(70_000) }),
    );
    expect(big).toMatchObject({
      code: "resolution_invalid",
      details: { field: "evidence", limit: 65_536 },
    });
    // Many small members add up the same way.
    const wide = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, i) => [`k${i}`, "y".repeat(40)]),
    );
    expect(
      await refusal(f.irrevon.resolve(findingId, "ESCALATED_HUMAN", { note: "ok", ...wide })),
    ).toMatchObject({ code: "resolution_invalid", details: { field: "evidence" } });

    const note = await refusal(
      f.irrevon.settleManually(effectId, {
        committed: true,
        decidedBy: "ops",
        note: "n".repeat(2_001),
      }),
    );
    expect(note).toMatchObject({
      code: "resolution_invalid",
      details: { field: "note", limit: 2_000, length: 2_001 },
    });
    const decider = await refusal(
      f.irrevon.settleManually(effectId, {
        committed: true,
        decidedBy: "d".repeat(257),
        note: "n",
      }),
    );
    expect(decider).toMatchObject({
      code: "resolution_invalid",
      details: { field: "decidedBy", limit: 256, length: 257 },
    });

    expect({
      resolutions: await countRows(f.ledger.superuser, "finding_resolutions"),
      transitions: await countRows(f.ledger.superuser, "effect_transitions"),
      findings: await countRows(f.ledger.superuser, "findings"),
    }).toEqual(before);
    // Within the bounds both are accepted and write.
    await f.irrevon.resolve(findingId, "ESCALATED_HUMAN", { note: "look at it" });
    await f.irrevon.settleManually(effectId, { committed: true, decidedBy: "ops", note: "seen" });
    expect(await countRows(f.ledger.superuser, "finding_resolutions")).toBeGreaterThan(
      before.resolutions,
    );
    expect(await countRows(f.ledger.superuser, "effect_transitions")).toBeGreaterThan(
      before.transitions,
    );
  });
});
