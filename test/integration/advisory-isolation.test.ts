/**
 * I9: an advisory proposal can never reach a mutation API — not the proposal object, not its
 * payload, not a JSON-laundered copy. Each call below is refused twice: by the compiler
 * (`@ts-expect-error` fails the typecheck if the call ever compiles) and at run time
 * (`advisory_rejected`), and the ledger is unchanged afterwards.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { ClassifierProposal } from "../../src/advisory/classifier-proposal.js";
import { describeEachBackend } from "../support/databases.js";
import { expectAuditClean } from "../support/audit.js";
import { openEngineFixture, orderContract, type EngineFixture } from "./engine-support.js";

const FACT_TABLES = ["effect_records", "parameter_variants", "findings", "finding_resolutions", "effect_transitions", "gate_decisions"];

async function counts(f: EngineFixture): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of FACT_TABLES) {
    const { rows } = await f.ledger.superuser.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`);
    out[t] = rows[0]?.n ?? -1;
  }
  return out;
}

describeEachBackend("advisory isolation", (backend) => {
  let f: EngineFixture;
  beforeEach(async () => {
    f = await openEngineFixture(backend);
  });
  afterEach(async () => {
    await expectAuditClean(f.ledger);
    await f.close();
  });

  it("register, resolve and settle refuse proposals at type level and at run time", async () => {
    const registered = await f.irrevon.register(orderContract());
    const proposal = new ClassifierProposal({ subjectEffectId: registered.effectId, proposedAction: "ACCEPTED_AS_IS", confidence: 0.97, rationale: "looks like the same order" });
    const payload = proposal.toPayload();
    const laundered = JSON.parse(JSON.stringify(payload)) as Record<string, unknown>;
    const before = await counts(f);

    // @ts-expect-error a proposal is not an intent contract
    await expect(f.irrevon.register(proposal)).rejects.toMatchObject({ code: expect.stringMatching(/advisory_rejected|contract_invalid/) });
    // @ts-expect-error nor is its payload
    await expect(f.irrevon.register(payload)).rejects.toMatchObject({ code: "advisory_rejected" });
    // A contract smuggling the marker in is refused too (the laundered copy is `any`-typed JSON).
    await expect(f.irrevon.register({ ...orderContract(), ...(laundered as object) })).rejects.toMatchObject({ code: "advisory_rejected" });

    // @ts-expect-error a proposal is not resolution evidence
    await expect(f.irrevon.resolve(1, "ACCEPTED_AS_IS", proposal)).rejects.toMatchObject({ code: "advisory_rejected" });
    // @ts-expect-error nor is its payload
    await expect(f.irrevon.resolve(1, "ACCEPTED_AS_IS", payload)).rejects.toMatchObject({ code: "advisory_rejected" });
    await expect(f.irrevon.resolve(1, "ACCEPTED_AS_IS", { note: "per classifier", ...laundered })).rejects.toMatchObject({ code: "advisory_rejected" });

    // @ts-expect-error a human settlement cannot carry a proposal
    await expect(f.irrevon.settleManually(registered.effectId, { committed: true, decidedBy: "ops", note: "x", proposed_action: "ACCEPTED_AS_IS" })).rejects.toMatchObject({ code: "advisory_rejected" });

    expect(await counts(f)).toEqual(before);
  });
});
