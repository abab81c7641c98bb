/**
 * testing/conformance — the adapter conformance suite anyone can run against their own
 * adapter: `checkAdapterConformance(factory, options)` runs every named check against a fresh
 * harness and returns a report (pass / fail / skip with a reason each); `assertConformant`
 * throws `adapter_nonconformant` listing every failure. The checks live in conformance-checks
 * and (batch status lookups) conformance-batch-checks.
 * Imports: core, adapters, testing.
 */
import { randomBytes } from "node:crypto";
import { IrrevonError, isIrrevonError } from "../core/errors.js";
import { loadDeclaration } from "../adapters/declaration.js";
import { BATCH_CHECKS } from "./conformance-batch-checks.js";
import {
  CHECKS,
  deadlineBounded,
  stepFailure,
  type Check,
  type CheckContext,
} from "./conformance-checks.js";
import {
  CONFORMANCE_CHECKS,
  type ConformanceCheck,
  type ConformanceCheckName,
  type ConformanceOptions,
  type ConformanceReport,
  type HarnessFactory,
} from "./conformance-types.js";

const ALL_CHECKS: Readonly<Record<ConformanceCheckName, Check>> = { ...CHECKS, ...BATCH_CHECKS };

function bounded(
  field: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new IrrevonError(
      "config_invalid",
      `${field} must be an integer in [${min}, ${max}] (got ${String(v)}); omit it for ${fallback}`,
      {
        details: { field, allowed: `${min}..${max}`, fix: `omit it for the default ${fallback}` },
      },
    );
  }
  return v;
}

function describeError(e: unknown): string {
  if (isIrrevonError(e)) return `${e.code}: ${e.message}`;
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * Run the conformance checks against adapters from `factory` (a fresh harness per check).
 * Never throws for a failing adapter — failures are in the report; throws `config_invalid`
 * for bad options only.
 */
export async function checkAdapterConformance(
  factory: HarnessFactory,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const deadlineMs = bounded("options.deadlineMs", options.deadlineMs, 5000, 1, 600_000);
  const listEffectsCount = bounded(
    "options.listEffectsCount",
    options.listEffectsCount,
    150,
    2,
    5000,
  );
  const nullLagMs = bounded("options.readLagMs", options.readLagMs, 1000, 0, 3_600_000);
  const only = options.only ?? CONFORMANCE_CHECKS;
  for (const name of only) {
    if (!(CONFORMANCE_CHECKS as readonly string[]).includes(name)) {
      throw new IrrevonError(
        "config_invalid",
        `options.only names an unknown check "${String(name)}"`,
        {
          details: { field: "options.only", allowed: CONFORMANCE_CHECKS.join(", ") },
        },
      );
    }
  }
  const order =
    options.order ?? ((i: number) => ({ effectType: "conformance.create", payload: { n: i } }));
  const checks: ConformanceCheck[] = [];
  let adapterId = "";
  let tier: ConformanceReport["tier"] = "C3";
  for (const name of CONFORMANCE_CHECKS.filter((n) => only.includes(n))) {
    const h = await factory();
    try {
      adapterId = h.adapter.adapterId;
      let verdict: Omit<ConformanceCheck, "name">;
      try {
        const d = loadDeclaration(h.adapter.declare());
        tier = d.tier;
        const ctx: CheckContext = {
          h,
          a: deadlineBounded(h.adapter),
          d,
          deadlineMs,
          run: randomBytes(6).toString("hex"),
          order,
          listEffectsCount,
          nullLagMs,
        };
        verdict = await ALL_CHECKS[name](ctx);
      } catch (e) {
        verdict = { status: "fail", reason: stepFailure(e) ?? `threw ${describeError(e)}` };
      }
      checks.push({ name, ...verdict });
    } finally {
      await h.close?.();
    }
  }
  const failures = checks.filter((c) => c.status === "fail");
  return { adapterId, tier, passed: failures.length === 0, checks, failures };
}

/**
 * Like {@link checkAdapterConformance}, but throws IrrevonError `adapter_nonconformant` whose
 * message lists every failed check (`details.failures`, `details.report`) when any fails.
 */
export async function assertConformant(
  factory: HarnessFactory,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const report = await checkAdapterConformance(factory, options);
  if (!report.passed) {
    const lines = report.failures.map((f) => `  ${f.name}: ${f.reason}`);
    throw new IrrevonError(
      "adapter_nonconformant",
      `adapter ${report.adapterId} failed ${report.failures.length} conformance check(s):\n${lines.join("\n")}`,
      {
        details: {
          adapter: report.adapterId,
          failures: report.failures.map((f) => f.name),
          report,
        },
      },
    );
  }
  return report;
}
