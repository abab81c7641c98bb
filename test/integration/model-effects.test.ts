/**
 * Model-based test of the whole promise (fast-check commands): random interleavings of
 * dispatch (with lost responses before and after commit, and re-worded retries of the same
 * order), late deliveries of a request whose response was lost, reconciliation, time passing,
 * audit, sweep, human resolutions (accept, re-dispatch of a LOST effect) and retries.
 *
 * After EVERY step: no effect has more destination effects than 1 + the number of human
 * re-dispatches the engine accepted for it (a second create happens only when a human chose
 * it, and the engine only accepts that on fresh evidence of absence).
 * At the end, after letting every clock run out and running the background work (reconcile,
 * audit, sweep): the independent history checker finds every destination effect explained or
 * reported — no orphan, no unreported duplicate, no false suppression, no unauthorized effect,
 * no unclaimed wire call.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { IrrevonError } from "../../src/core/errors.js";
import type { AuthorityInput } from "../../src/ledger/append-authority.js";
import { readLedgerHistory, readDestinationHistory } from "../support/history/ledger-history.js";
import { checkHistory, countByInvariant } from "../../src/testing/history-checker.js";
import { describeEachBackend, type Backend } from "../support/databases.js";
import {
  ORIGINAL_PARAMS,
  RESYNTHESIZED_PARAMS,
  openEngineFixture,
  orderContract,
  type EngineFixture,
} from "./engine-support.js";

const ORDERS = ["ord-a", "ord-b"] as const;
const LAG_SECONDS = 30;
const REREAD_GAP_SECONDS = 60;

/** Refusals the engine may legitimately answer a random operator action with. */
const EXPECTED_REFUSALS = new Set([
  "illegal_state",
  "resolution_invalid",
  "stale_state",
  "not_found",
  "pending_reconciliation",
]);

interface Real {
  readonly f: EngineFixture;
  /** order id → effect id, once registered. */
  readonly effects: Map<string, string>;
  /** effect id → accepted human re-dispatches. */
  readonly humanRedispatches: Map<string, number>;
  /** Operation ids whose create was dropped before the destination committed it. */
  readonly undelivered: Set<string>;
  readonly trace: string[];
}

type Model = Record<string, never>;
type Cmd = fc.AsyncCommand<Model, Real>;

async function tolerate<T>(real: Real, label: string, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof IrrevonError && EXPECTED_REFUSALS.has(e.code)) {
      real.trace.push(`${label} refused ${e.code}`);
      return null;
    }
    throw e;
  }
}

function authority(): AuthorityInput {
  return {
    authorityRef: `auth_${Math.random().toString(36).slice(2, 8)}`,
    stampedAt: new Date().toISOString(),
  };
}

const FAULTS = [
  "none",
  "DROP_RESPONSE_BEFORE_COMMIT",
  "DROP_RESPONSE_AFTER_COMMIT",
  "ERROR_5XX_AFTER_COMMIT",
  // Not a wire fault: the payload asks the destination to refuse it (a clean FAILED, HTTP 400).
  "REJECT",
] as const;
type Fault = (typeof FAULTS)[number];

/** One command: a label for shrinking output and what it does to the real system. */
function command(label: string, run: (real: Real) => Promise<void>): Cmd {
  return { check: () => true, run: (_m, real) => run(real), toString: () => label };
}

function effectOf(real: Real, order: string): string | undefined {
  return real.effects.get(order);
}

function send(order: string, fault: Fault, reworded: boolean): Cmd {
  return command(`Send(${order},${fault},${reworded})`, async (real) => {
    const { f } = real;
    const reg = await f.irrevon.register(
      orderContract({
        stable_ids: { order_id: order, customer_ref: "C-0007" },
        parameters: {
          ...(reworded ? RESYNTHESIZED_PARAMS : ORIGINAL_PARAMS),
          ...(fault === "REJECT" ? { reject: true } : {}),
        },
        adapter_id: f.adapterId,
        authority_ref: "auth_model",
        stamped_at: new Date().toISOString(),
      }),
    );
    real.effects.set(order, reg.effectId);
    const status = await f.irrevon.status(reg.effectId);
    if (fault !== "none" && fault !== "REJECT") {
      f.refdest.schedule([{ fault, match: { op: "create", client_ref: status.operationId } }]);
    }
    const out = await tolerate(real, "dispatch", () => f.irrevon.dispatch(reg.effectId));
    real.trace.push(`send ${order} ${fault} → ${out?.status ?? "refused"}`);
    // A request the destination did not commit may still surface later (a late delivery, or a
    // destination whose 400 was wrong): the model lets it arrive at any later step.
    if (
      out?.status === "dispatched" &&
      (fault === "DROP_RESPONSE_BEFORE_COMMIT" || fault === "REJECT")
    ) {
      real.undelivered.add(out.operationId);
    }
    // An unconsumed fault entry must not hit a later, unrelated request.
    f.refdest.schedule([], { replace: true });
  });
}

/** A create lost before commit, then reconciled until the engine settles it (LOST). */
function loseAndSettle(order: string): Cmd {
  const inner = send(order, "DROP_RESPONSE_BEFORE_COMMIT", false);
  return command(`LoseAndSettle(${order})`, async (real) => {
    await inner.run({}, real);
    const effectId = effectOf(real, order);
    if (effectId === undefined) return;
    for (let round = 0; round < 4; round += 1) {
      const out = await tolerate(real, "reconcile", () => real.f.irrevon.reconcile(effectId));
      if (out === null || out.status === "failed" || out.status === "settled") break;
      real.f.clock.advance((LAG_SECONDS + REREAD_GAP_SECONDS) * 1000);
      real.f.refdest.advanceClock(LAG_SECONDS + REREAD_GAP_SECONDS);
    }
    real.trace.push(`lose and settle ${order}`);
  });
}

/** The request whose response was lost before commit arrives at the destination after all. */
function lateDelivery(pick: number): Cmd {
  return command(`LateDelivery(${pick})`, (real) => {
    const pending = [...real.undelivered];
    const operationId = pending[pick % Math.max(1, pending.length)];
    if (operationId === undefined) return Promise.resolve();
    real.undelivered.delete(operationId);
    real.f.refdest.createOutOfBand({
      effect_type: "order.create",
      payload: {},
      client_ref: operationId,
    });
    real.trace.push(`late delivery ${operationId.slice(-8)}`);
    return Promise.resolve();
  });
}

function reconcile(order: string): Cmd {
  return command(`Reconcile(${order})`, async (real) => {
    const effectId = effectOf(real, order);
    if (effectId === undefined) return;
    const out = await tolerate(real, "reconcile", () => real.f.irrevon.reconcile(effectId));
    real.trace.push(`reconcile ${order} → ${out?.status ?? "refused"}`);
  });
}

function advance(seconds: number): Cmd {
  return command(`Advance(${seconds})`, (real) => {
    real.f.clock.advance(seconds * 1000);
    real.f.refdest.advanceClock(seconds);
    real.trace.push(`advance ${seconds}s`);
    return Promise.resolve();
  });
}

function audit(order: string): Cmd {
  return command(`Audit(${order})`, async (real) => {
    const effectId = effectOf(real, order);
    if (effectId === undefined) return;
    await tolerate(real, "audit", () => real.f.irrevon.audit(effectId));
  });
}

const sweep: Cmd = command("Sweep", async (real) => {
  await tolerate(real, "sweep", () => real.f.irrevon.sweep(real.f.adapterId));
});

/**
 * A re-dispatch the engine accepted must have been decided on evidence of absence: the newest
 * probe of the effect (any step, any kind) is ABSENT and no CONTRADICTED finding is open.
 */
async function expectDecidedOnAbsence(real: Real, effectId: string): Promise<void> {
  const { rows } = await real.f.ledger.superuser.query<{ result: string }>(
    `SELECT p.result FROM status_probes p JOIN effect_executions x USING (execution_id)
      WHERE x.effect_id = $1 ORDER BY p.probe_id DESC LIMIT 1`,
    [effectId],
  );
  const contradicted = await real.f.irrevon.findings({
    effectId,
    classification: "CONTRADICTED",
    status: "OPEN",
  });
  if (rows[0]?.result !== "ABSENT" || contradicted.length > 0) {
    throw new Error(
      `re-dispatch of ${effectId.slice(0, 12)} accepted on newest probe ${rows[0]?.result ?? "none"} ` +
        `with ${contradicted.length} open CONTRADICTED finding(s)\n${real.trace.join("\n")}`,
    );
  }
}

function humanRedispatch(order: string): Cmd {
  return command(`HumanRedispatch(${order})`, async (real) => {
    const effectId = effectOf(real, order);
    if (effectId === undefined) return;
    const lost = await real.f.irrevon.findings({
      effectId,
      classification: "LOST",
      status: "OPEN",
    });
    const finding = lost[lost.length - 1];
    if (finding === undefined) return;
    const out = await tolerate(real, "redispatch", () =>
      real.f.irrevon.redispatchLost(finding.findingId, authority(), "operator re-dispatch"),
    );
    if (out?.status === "dispatched") {
      await expectDecidedOnAbsence(real, effectId);
      real.humanRedispatches.set(effectId, (real.humanRedispatches.get(effectId) ?? 0) + 1);
    }
    real.trace.push(`human redispatch ${order} → ${out?.status ?? "refused"}`);
  });
}

function accept(order: string): Cmd {
  return command(`Accept(${order})`, async (real) => {
    const effectId = effectOf(real, order);
    if (effectId === undefined) return;
    const open = await real.f.irrevon.findings({ effectId, status: "OPEN" });
    const finding = open[open.length - 1];
    if (finding === undefined) return;
    await tolerate(real, "accept", () =>
      real.f.irrevon.resolve(finding.findingId, "ACCEPTED_AS_IS", {
        note: "accepted by the model",
      }),
    );
    real.trace.push(`accept ${finding.classification} of ${order}`);
  });
}

/** True when the ledger holds evidence that the destination has the effect (a PRESENT probe). */
async function presenceKnown(real: Real, effectId: string): Promise<boolean> {
  const { rows } = await real.f.ledger.superuser.query<{ n: unknown }>(
    `SELECT count(*) AS n FROM status_probes p JOIN effect_executions x USING (execution_id)
      WHERE x.effect_id = $1 AND p.result = 'PRESENT'`,
    [effectId],
  );
  return Number(rows[0]?.n ?? 0) > 0;
}

function retry(order: string): Cmd {
  return command(`Retry(${order})`, async (real) => {
    const effectId = effectOf(real, order);
    if (effectId === undefined) return;
    const known = await presenceKnown(real, effectId);
    const opened = await tolerate(real, "retry", () => real.f.irrevon.retry(effectId, authority()));
    if (opened === null) return;
    const out = await tolerate(real, "dispatch", () => real.f.irrevon.dispatch(effectId));
    real.trace.push(`retry ${order} → ${out?.status ?? "refused"}`);
    if (known && out?.status === "dispatched") {
      throw new Error(
        `retry re-sent ${effectId.slice(0, 12)}, which the destination is known to hold\n${real.trace.join("\n")}`,
      );
    }
  });
}

/** Destination effects per effect id (by the operation id each effect carries). */
function destinationEffectsPerEffect(real: Real): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of real.f.refdest.truthDump().effects) {
    const key = e.idempotency_key ?? e.client_ref;
    const effectId = key?.split(":")[0];
    if (effectId === undefined) continue;
    out.set(effectId, (out.get(effectId) ?? 0) + 1);
  }
  return out;
}

function checkNoUnchosenSecondCreate(real: Real, step: string): void {
  for (const [effectId, n] of destinationEffectsPerEffect(real)) {
    const allowed = 1 + (real.humanRedispatches.get(effectId) ?? 0);
    if (n > allowed) {
      throw new Error(
        `after ${step}: effect ${effectId.slice(0, 12)} has ${n} destination effects, ` +
          `allowed ${allowed}\n${real.trace.join("\n")}`,
      );
    }
  }
}

/** Let every clock run out and do the background work, as a worker would. */
async function settle(real: Real): Promise<void> {
  const { f } = real;
  for (let round = 0; round < 4; round += 1) {
    f.clock.advance((LAG_SECONDS + REREAD_GAP_SECONDS + 5) * 1000);
    f.refdest.advanceClock(LAG_SECONDS + REREAD_GAP_SECONDS + 5);
    for (const effectId of real.effects.values()) {
      await tolerate(real, "settle.reconcile", () => f.irrevon.reconcile(effectId));
      await tolerate(real, "settle.audit", () => f.irrevon.audit(effectId));
    }
    await tolerate(real, "settle.sweep", () => f.irrevon.sweep(f.adapterId));
  }
}

const order = fc.constantFrom(...ORDERS);
const commands = [
  fc.tuple(order, fc.constantFrom(...FAULTS), fc.boolean()).map(([o, fl, r]) => send(o, fl, r)),
  order.map(loseAndSettle),
  fc.nat(3).map(lateDelivery),
  fc.nat(3).map(lateDelivery),
  order.map(reconcile),
  fc.constantFrom(1, LAG_SECONDS, REREAD_GAP_SECONDS + 1, 600).map(advance),
  order.map(audit),
  fc.constant(sweep),
  order.map(humanRedispatch),
  order.map(humanRedispatch),
  order.map(accept),
  order.map(retry),
  order.map(retry),
];

/**
 * Histories the reviews found producing a second order; they run first, through the same
 * harness, so the property cannot pass by never drawing them.
 */
const KNOWN_HISTORIES: ReadonlyArray<readonly Cmd[]> = [
  // A LOST effect surfaces, the audit sees it, a human re-dispatches anyway.
  [
    loseAndSettle("ord-a"),
    lateDelivery(0),
    advance(LAG_SECONDS + 1),
    audit("ord-a"),
    humanRedispatch("ord-a"),
  ],
  // "It exists as is" is accepted, then a retry re-sends it.
  [
    send("ord-a", "REJECT", false),
    lateDelivery(0),
    advance(LAG_SECONDS + 1),
    audit("ord-a"),
    accept("ord-a"),
    retry("ord-a"),
  ],
  // A late step-0 effect after a re-dispatch of step 1: both orders must be reported.
  [loseAndSettle("ord-a"), humanRedispatch("ord-a"), lateDelivery(0), advance(600), sweep, sweep],
];

/** Runs one history on a fresh ledger, checking after every step and after settling. */
async function runHistory(backend: Backend, cmds: readonly Cmd[]): Promise<void> {
  const f = await openEngineFixture(backend, {
    lagSeconds: LAG_SECONDS,
    config: { rereadGapSeconds: REREAD_GAP_SECONDS },
  });
  const real: Real = {
    f,
    effects: new Map(),
    humanRedispatches: new Map(),
    undelivered: new Set(),
    trace: [],
  };
  try {
    const checked = cmds.map((c) =>
      command(c.toString(), async (r) => {
        await c.run({}, r);
        checkNoUnchosenSecondCreate(r, c.toString());
      }),
    );
    await fc.asyncModelRun(() => ({ model: {}, real }), checked);
    if (process.env["MODEL_TRACE"]) console.log(real.trace.join("\n"));
    await settle(real);
    checkNoUnchosenSecondCreate(real, "settle");
    const verdict = checkHistory(
      await readLedgerHistory(f.ledger.superuser),
      readDestinationHistory(f.refdest),
    );
    expect({
      ...countByInvariant(verdict.violations),
      trace: verdict.violations.length === 0 ? [] : real.trace,
    }).toEqual({
      duplicate_effect: 0,
      orphan_effect: 0,
      lost_legitimate_effect: 0,
      effect_after_cancellation: 0,
      unauthorized_effect: 0,
      false_suppression: 0,
      claim_contradiction: 0,
      effect_despite_pre_persist_crash: 0,
      unclaimed_wire_call: 0,
      trace: [],
    });
  } finally {
    await f.close();
  }
}

const NUM_RUNS = process.env["CI"] ? 12 : 6;

describeEachBackend(
  "model-based: dispatch, loss, late delivery, evidence, resolution",
  (backend) => {
    it.each(KNOWN_HISTORIES.map((h, i) => [i, h] as const))(
      "known history %i: no unchosen second create, everything explained or reported",
      async (_i, history) => {
        await runHistory(backend, history);
      },
    );

    it("random histories: never a second create unless a human chose it on evidence of absence; every effect explained or reported", async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 15 }), (cmds) =>
          runHistory(backend, [...cmds]),
        ),
        { numRuns: NUM_RUNS, endOnFailure: true },
      );
    }, 600_000);
  },
);
