/**
 * cli/commands/resolve — `irrevon resolve accept|escalate|compensate|redispatch FINDING_ID
 * --note TEXT`: a human decision about a finding (engine/resolution).
 *   accept      ⇒ ACCEPTED_AS_IS, closed at once;
 *   escalate    ⇒ ESCALATED_HUMAN;
 *   compensate  ⇒ COMPENSATED, `--compensating-effect ID` (a registered effect whose stable ids
 *                 carry compensates_finding_id = FINDING_ID); closes when it commits;
 *   redispatch  ⇒ REDISPATCHED (LOST only), `--authority-ref R [--stamped-at T]` (T defaults to
 *                 now); needs the configured adapter: it may probe the destination and it
 *                 dispatches the replacement.
 * Exit 2 for an illegal resolution (e.g. re-dispatching a DUPLICATE) or bad arguments; 3 when
 * another process resolved the finding first, when the finding does not exist, or when the
 * replacement was not sent or failed. `--json` prints `{schema_version, finding_id,
 * classification, action, from, status, closed, resolution_seqs, compensating_effect_id?,
 * redispatch?:{operation_id, execution_id, absent_probe_id, fresh_probe, dispatch}}`.
 */
import type { Command } from "commander";
import { ErrorCode, IrrevonError } from "../../core/errors.js";
import { isIntentId } from "../../core/identity.js";
import { isRfc3339 } from "../../core/rfc3339.js";
import type { ResolutionAction } from "../../core/state-tables.js";
import type { DispatchOutcome } from "../../engine/dispatcher.js";
import type { ResolveEvidence, ResolveOutcome } from "../../engine/resolution.js";
import { EXIT_CODES } from "../exit-codes.js";
import { withLedgerOptions, type LedgerFlags } from "../ledger-options.js";
import { openCliEngine } from "../open-engine.js";
import { parseId, withDeclaredOutcomes } from "../operator-args.js";
import { emitResult, requestExit } from "../output.js";

const ACTIONS: Readonly<Record<string, ResolutionAction>> = {
  accept: "ACCEPTED_AS_IS",
  escalate: "ESCALATED_HUMAN",
  compensate: "COMPENSATED",
  redispatch: "REDISPATCHED",
};

interface ResolveFlags extends LedgerFlags {
  readonly note: string;
  readonly compensatingEffect?: string;
  readonly authorityRef?: string;
  readonly stampedAt?: string;
}

function usage(message: string, flag: string): IrrevonError {
  return new IrrevonError(ErrorCode.usage, message, { details: { flag } });
}

function evidenceFor(action: ResolutionAction, flags: ResolveFlags): ResolveEvidence {
  if (flags.note.trim() === "") throw usage("--note must say why", "--note");
  if (action !== "COMPENSATED" && flags.compensatingEffect !== undefined)
    throw usage("--compensating-effect belongs to `resolve compensate`", "--compensating-effect");
  if (
    action !== "REDISPATCHED" &&
    (flags.authorityRef !== undefined || flags.stampedAt !== undefined)
  )
    throw usage("--authority-ref/--stamped-at belong to `resolve redispatch`", "--authority-ref");
  if (action === "COMPENSATED") {
    if (flags.compensatingEffect === undefined || !isIntentId(flags.compensatingEffect))
      throw usage(
        "compensate needs --compensating-effect <64-hex effect id>",
        "--compensating-effect",
      );
    return { note: flags.note, compensating_effect_id: flags.compensatingEffect };
  }
  if (action === "REDISPATCHED") {
    if (flags.authorityRef === undefined || flags.authorityRef === "")
      throw usage("redispatch needs --authority-ref (the fresh authority)", "--authority-ref");
    if (flags.stampedAt !== undefined && !isRfc3339(flags.stampedAt))
      throw usage("--stamped-at must be an RFC 3339 instant", "--stamped-at");
    return {
      note: flags.note,
      fresh_authority_ref: flags.authorityRef,
      ...(flags.stampedAt === undefined ? {} : { stamped_at: flags.stampedAt }),
    };
  }
  return { note: flags.note };
}

function dispatchJson(d: DispatchOutcome): Record<string, unknown> {
  switch (d.status) {
    case "dispatched":
      return {
        status: d.status,
        operation_id: d.operationId,
        transport_outcome: d.transportOutcome,
        lifecycle: d.lifecycle,
      };
    case "denied":
      return { status: d.status, check: d.check, cause: d.cause, decision_id: d.decisionId };
    case "pending_reconciliation":
      return { status: d.status, operation_id: d.operationId, frontier: d.frontier };
    case "scope_busy":
      return { status: d.status, blocking_effect_id: d.blockingEffectId };
  }
}

function outcomeJson(o: ResolveOutcome): Record<string, unknown> {
  return {
    finding_id: o.findingId,
    classification: o.classification,
    action: o.action,
    from: o.from,
    status: o.current,
    closed: o.closed,
    resolution_seqs: o.resolutionSeqs,
    ...(o.compensatingEffectId === undefined
      ? {}
      : { compensating_effect_id: o.compensatingEffectId }),
    ...(o.redispatch === undefined
      ? {}
      : {
          redispatch: {
            operation_id: o.redispatch.operationId,
            execution_id: o.redispatch.executionId,
            absent_probe_id: o.redispatch.absentProbeId,
            fresh_probe: o.redispatch.freshProbe,
            dispatch: dispatchJson(o.redispatch.dispatch),
          },
        }),
  };
}

/** Registers the `resolve` command. */
export function register(program: Command): void {
  withLedgerOptions(
    program
      .command("resolve")
      .description("decide about a finding: accept | escalate | compensate | redispatch")
      .argument("<action>", "accept | escalate | compensate | redispatch")
      .argument("<finding_id>", "the finding (see `irrevon findings list`)")
      .requiredOption("--note <text>", "why (recorded with the decision)")
      .option("--compensating-effect <effect_id>", "compensate: the registered compensating effect")
      .option("--authority-ref <ref>", "redispatch: the fresh authority for the new step")
      .option("--stamped-at <time>", "redispatch: when that authority was stamped (default: now)"),
  ).action(async (actionName: string, findingText: string, flags: ResolveFlags) => {
    const json = flags.json === true;
    const action = ACTIONS[actionName];
    if (action === undefined)
      throw usage(`action must be one of ${Object.keys(ACTIONS).join(", ")}`, "<action>");
    const findingId = parseId(findingText, "finding_id");
    const evidence = evidenceFor(action, flags);
    await withDeclaredOutcomes(json, [ErrorCode.stale_state, ErrorCode.not_found], async () => {
      const { irrevon } = await openCliEngine(flags, { withAdapters: action === "REDISPATCHED" });
      let outcome: ResolveOutcome;
      try {
        // No --stamped-at: the engine stamps the fresh authority with the ledger's clock.
        outcome = await irrevon.resolve(findingId, action, evidence);
      } finally {
        await irrevon.close();
      }
      const sent = outcome.redispatch?.dispatch;
      emitResult(
        json,
        outcomeJson(outcome),
        `finding ${findingId} (${outcome.classification}): ${outcome.from} → ${action}` +
          (outcome.closed ? " → CLOSED" : "") +
          (sent === undefined
            ? ""
            : ` · replacement ${outcome.redispatch?.operationId ?? "?"}: ${sent.status}${sent.status === "dispatched" ? ` ${sent.lifecycle}` : ""}`),
      );
      if (
        sent !== undefined &&
        (sent.status !== "dispatched" || sent.lifecycle === "SETTLED_FAILED")
      )
        requestExit(EXIT_CODES.declared_outcome.code);
    });
  });
}
