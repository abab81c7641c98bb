/**
 * Every code path that can make a destination create an effect goes through the commit gate.
 * A source scan of src/ (the benchmark's unguarded baseline arm excepted, by design) checks:
 *   - only engine/call-adapter calls an adapter's `dispatch` (the wire call);
 *   - only engine/gated-send calls `callDispatch`, and it takes a claim the gate allowed;
 *   - every caller of `sendGated` obtains that claim from one of the gated claims
 *     (`claimDispatch`, `claimReplayProbe`); the fused register-and-dispatch hands the
 *     dispatcher a claim from `claimOnInputs`, the one try `claimDispatch` makes;
 *   - only ledger/claim-attempt writes `dispatch_attempts`, and only with a decision id
 *     (`gate_decision_id`) — the database refuses an attempt without an ALLOW decision too
 *     (test/integration/gate-every-send.test.ts); the hot path's locked claim
 *     (`ledger_claim`, sql/migrations/0050) records the decision before the attempt, which
 *     cites it.
 * The paths enumerated: first send, retry and human or policy re-dispatch (dispatcher, via
 * claimDispatch), and the C1 replay probe (replay-probe, via claimReplayProbe).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
/** The benchmark measures the unguarded call on purpose (its direct baseline). */
const EXEMPT = ["src/bench/"];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

const SOURCES = files(join(ROOT, "src"))
  .map((path) => ({
    rel: relative(ROOT, path).replaceAll("\\", "/"),
    text: readFileSync(path, "utf8"),
  }))
  .filter((f) => !EXEMPT.some((e) => f.rel.startsWith(e)))
  .filter((f) => !f.rel.endsWith(".generated.ts"));

function sitesOf(pattern: RegExp): string[] {
  return SOURCES.filter((f) => pattern.test(f.text))
    .map((f) => f.rel)
    .sort();
}

describe("gate on every send (source scan)", () => {
  it("only call-adapter makes the wire call", () => {
    expect(sitesOf(/\badapter\.dispatch\(/)).toEqual(["src/engine/call-adapter.ts"]);
  });

  it("only gated-send calls callDispatch, and it requires a gate-allowed claim", () => {
    expect(sitesOf(/(?<!function )\bcallDispatch\(/)).toEqual(["src/engine/gated-send.ts"]);
    const gated = SOURCES.find((f) => f.rel === "src/engine/gated-send.ts");
    expect(gated?.text).toMatch(/export async function sendGated\(\s*claim: GateAllowedClaim/);
  });

  it("every caller of sendGated obtains its claim from a gated claim", () => {
    const callers = sitesOf(/\bsendGated\(/).filter((rel) => rel !== "src/engine/gated-send.ts");
    expect(callers).toEqual(["src/engine/dispatcher.ts", "src/engine/replay-probe.ts"]);
    for (const rel of callers) {
      const text = SOURCES.find((f) => f.rel === rel)?.text ?? "";
      expect(text, rel).toMatch(/\b(claimDispatch|claimReplayProbe)\(/);
    }
    const fused = SOURCES.find((f) => f.rel === "src/engine/register-dispatch.ts")?.text ?? "";
    expect(fused).toMatch(/\bclaimOnInputs\(/);
    expect(fused).toMatch(/\bfinishClaim\(/);
  });

  it("only claim-attempt writes dispatch_attempts, always citing a gate decision", () => {
    expect(sitesOf(/INSERT INTO dispatch_attempts/)).toEqual(["src/ledger/claim-attempt.ts"]);
    const text = SOURCES.find((f) => f.rel === "src/ledger/claim-attempt.ts")?.text ?? "";
    expect(text).toMatch(/gate_decision_id/);
    expect(text).not.toMatch(/NULL, \$\d+, \$\d+\s*\n?\s*FROM dispatch_attempts/);
  });

  it("only gate-decide records gate decisions", () => {
    expect(sitesOf(/INSERT INTO gate_decisions/)).toEqual(["src/ledger/gate-decide.ts"]);
  });

  it("the claims that hand out a wire call persist a gate decision first", () => {
    const probe = SOURCES.find((f) => f.rel === "src/ledger/claim-replay-probe.ts")?.text ?? "";
    expect(probe).toMatch(/\bdecideGate\(/);
    // The dispatch claim decides in gate-decide and records through the locked claim function.
    const claim = SOURCES.find((f) => f.rel === "src/ledger/claim-dispatch.ts")?.text ?? "";
    expect(claim).toMatch(/\bdecideOnInputs\(/);
    expect(claim).toMatch(/SELECT ledger_claim\(/);
    // The live definition: the newest migration that (re)defines ledger_claim.
    const dir = join(ROOT, "sql", "migrations");
    const defining = readdirSync(dir)
      .filter((f) => f.endsWith(".sql"))
      .sort()
      .filter((f) =>
        /CREATE (OR REPLACE )?FUNCTION ledger_claim\(/.test(readFileSync(join(dir, f), "utf8")),
      );
    const newest = defining[defining.length - 1] ?? "";
    expect(newest).not.toBe("");
    const sql = readFileSync(join(dir, newest), "utf8");
    const body = sql.slice(sql.search(/CREATE (OR REPLACE )?FUNCTION ledger_claim\(/));
    const decision = body.indexOf("INSERT INTO gate_decisions");
    const attempt = body.indexOf("INSERT INTO dispatch_attempts");
    expect(decision).toBeGreaterThan(0);
    expect(attempt).toBeGreaterThan(decision);
    expect(body.slice(attempt, body.indexOf("RETURNING", attempt))).toMatch(/v_decision/);
  });
});
