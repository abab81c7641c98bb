/**
 * Migration 0056: registering a NEW record builds the gate's inputs without the lookups that
 * cannot find anything yet (irrevon_new_record_claim_inputs). It must return exactly what
 * irrevon_claim_inputs returns for that record in the same transaction — same jsonb (gate time
 * included: both read now(), the transaction's start) and so the same version — whatever the
 * deny entries (matching, lifted, not matching), authority policies (a scope's, the default, an
 * expired authority) and branch (none, live, cancelled) are. A replay keeps reading
 * irrevon_claim_inputs, also as the first registration with inputs a session runs. If the two ever differ, a claim that reads again would see another
 * version, and a fused claim (which trusts the registration's read, 0053) would decide on
 * inputs the full read would not have given.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { declarationDigest } from "../../src/adapters/declaration.js";
import { refdestDeclaration } from "../../src/adapters/declarations/refdest.js";
import { validateIntentContract } from "../../src/core/contract.js";
import { registerIn } from "../../src/ledger/register-intent.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { orderContract } from "./engine-support.js";

const DIGEST = declarationDigest(refdestDeclaration("C2"));

type Deny = "none" | "matching" | "lifted" | "other_scope";
type Policy = "default" | "scope" | "expired";
type Branch = "none" | "live" | "cancelled";
const DENIES: readonly Deny[] = ["none", "matching", "lifted", "other_scope"];
const POLICIES: readonly Policy[] = ["default", "scope", "expired"];
const BRANCHES: readonly Branch[] = ["none", "live", "cancelled"];

describeEachBackend("a new record's claim inputs equal irrevon_claim_inputs", (backend) => {
  let l: TestLedger;
  beforeAll(async () => {
    l = await openTestLedger(backend);
  });
  afterAll(async () => {
    await l.close();
  });

  async function arrange(n: number, deny: Deny, policy: Policy, branch: Branch) {
    const scope = `nri-${backend}-${n}`;
    const su = l.superuser;
    if (deny !== "none") {
      const { rows } = await su.query<{ id: number }>(
        "INSERT INTO deny_entries (effect_type, scope, reason) VALUES ('order.create', $1, 'test') RETURNING deny_id AS id",
        [deny === "other_scope" ? `${scope}-other` : scope],
      );
      if (deny === "lifted") await su.query("INSERT INTO deny_lifts (deny_id) VALUES ($1)", [rows[0]?.id]);
    }
    if (policy !== "default")
      await su.query("INSERT INTO authority_policies (scope_pattern, max_age) VALUES ($1, $2::interval)", [
        scope,
        policy === "expired" ? "1 second" : "2 hours",
      ]);
    const branchRef = branch === "none" ? null : `branch-${backend}-${n}`;
    if (branch === "cancelled")
      await su.query("INSERT INTO branch_cancellations (branch_ref, reason) VALUES ($1, 'test')", [branchRef]);
    const stampedAt = new Date(Date.now() - (policy === "expired" ? 60_000 : 0)).toISOString();
    return validateIntentContract(
      orderContract({
        scope,
        stable_ids: { order_id: `nri-${n}` },
        stamped_at: stampedAt,
        ...(branchRef === null ? {} : { branch_ref: branchRef }),
      }),
    );
  }

  it("for every combination of deny entries, authority policy and branch", async () => {
    let n = 0;
    const seen = new Set<string>();
    for (const deny of DENIES)
      for (const policy of POLICIES)
        for (const branch of BRANCHES) {
          n += 1;
          const intent = await arrange(n, deny, policy, branch);
          const got = await l.app.transaction(async (tx) => {
            const r = await registerIn(tx, intent, DIGEST, { lockSlot: true, withInputs: true });
            const { rows } = await tx.query<{ full: unknown; version: string; fast: unknown }>(
              `SELECT irrevon_claim_inputs($1) AS full, irrevon_claim_version(irrevon_claim_inputs($1)) AS version,
                      irrevon_new_record_claim_inputs($1, x.execution_id, x.operation_id, f.frontier) AS fast
                 FROM effect_executions x JOIN execution_frontiers f USING (execution_id)
                WHERE x.effect_id = $1`,
              [intent.identity.intentId],
            );
            return { r, row: rows[0] };
          });
          const where = `${deny}/${policy}/${branch}`;
          expect(got.r.replayed, where).toBe(false);
          expect(got.row?.fast, where).toEqual(got.row?.full);
          expect(got.r.inputs?.version, where).toBe(got.row?.version);
          const full = got.row?.full as {
            deny_hits: unknown[];
            authority: { is_expired: boolean };
            executions: Array<{ frontier: string }>;
          };
          // The matrix really reaches the states it names.
          seen.add(`deny:${full.deny_hits.length > 0}`);
          seen.add(`expired:${full.authority.is_expired}`);
          seen.add(`frontier:${full.executions[0]?.frontier}`);
          expect(full.deny_hits.length > 0, where).toBe(deny === "matching");
          expect(full.authority.is_expired, where).toBe(policy === "expired");
          expect(full.executions[0]?.frontier, where).toBe(branch === "cancelled" ? "CANCELLED" : "PERSISTED");
        }
    expect([...seen].sort()).toEqual([
      "deny:false",
      "deny:true",
      "expired:false",
      "expired:true",
      "frontier:CANCELLED",
      "frontier:PERSISTED",
    ]);
  });

  it("a session whose first registration with inputs is a replay (register(), then run() after a restart)", async () => {
    // Its own ledger, so no session has yet run the registration with inputs of a new record.
    const fresh = await openTestLedger(backend);
    try {
      const intent = validateIntentContract(orderContract({ stable_ids: { order_id: "nri-first-replay" } }));
      const created = await fresh.app.transaction((tx) =>
        registerIn(tx, intent, DIGEST, { lockSlot: true, withInputs: false }),
      );
      expect(created.replayed).toBe(false);
      const replay = await fresh.app.transaction((tx) =>
        registerIn(tx, intent, DIGEST, { lockSlot: true, withInputs: true }),
      );
      expect(replay.replayed).toBe(true);
      expect(replay.inputs?.record.effectId).toBe(intent.identity.intentId);
    } finally {
      await fresh.close();
    }
  });

  it("a replay still reads the full inputs: its version is irrevon_claim_inputs' after a variant", async () => {
    const intent = await arrange(1000, "none", "default", "none");
    await l.app.transaction((tx) => registerIn(tx, intent, DIGEST, { lockSlot: true, withInputs: true }));
    const variant = validateIntentContract(
      orderContract({
        scope: intent.scope,
        stable_ids: { order_id: "nri-1000" },
        stamped_at: intent.stampedAt,
        parameters: { sku: "other", quantity: 2 },
      }),
    );
    const got = await l.app.transaction(async (tx) => {
      const r = await registerIn(tx, variant, DIGEST, { lockSlot: true, withInputs: true });
      const { rows } = await tx.query<{ version: string; variants: unknown[] }>(
        "SELECT irrevon_claim_version(irrevon_claim_inputs($1)) AS version, irrevon_claim_inputs($1)->'variants' AS variants",
        [intent.identity.intentId],
      );
      return { r, row: rows[0] };
    });
    expect(got.r.replayed).toBe(true);
    expect(got.row?.variants).toHaveLength(1);
    expect(got.r.inputs?.version).toBe(got.row?.version);
  });
});
