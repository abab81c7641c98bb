/**
 * The workbench's stable-id digest: keys kept, values as sha256 of their UTF-8 bytes; the
 * record pass digests stable ids and the canonical preimage (what `irrevon inspect --json` prints); the
 * safety pass catches raw values elsewhere without corrupting digests or state names.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stableIdValueDigest } from "../../src/core/value-digest.js";
import {
  MIN_EMBEDDED_LENGTH,
  redactStableIds,
  StableIdRedactor,
} from "../../src/core/stable-id-redaction.js";

const sha = (s: string): string => `sha256:${createHash("sha256").update(s, "utf8").digest("hex")}`;

describe("workbench stable-id digest", () => {
  it("digests each value as sha256 of its UTF-8 bytes and keeps the keys", () => {
    const out = redactStableIds({
      record: { stable_ids: { order_id: "9410", customer_ref: "C-0007", name: "Zoë ✓" } },
    });
    expect(out.record.stable_ids).toEqual({
      order_id: sha("9410"),
      customer_ref: sha("C-0007"),
      name: sha("Zoë ✓"),
    });
    expect(stableIdValueDigest("9410")).toBe(
      "sha256:" + createHash("sha256").update(Buffer.from("9410", "utf8")).digest("hex"),
    );
  });

  it("digests a record's stable ids and canonical preimage, leaving the rest (the CLI's inspect --json)", () => {
    const doc = {
      schema_version: "1",
      kind: "effect",
      record: {
        effect_id: "a".repeat(64),
        stable_ids: { order_id: "9410", customer_ref: "C-0007" },
        contract_canonical:
          '{"effect_type":"order.create","scope":"s","stable_ids":{"customer_ref":"C-0007","order_id":"9410"}}',
        scope: "s",
      },
      timeline: [{ to_state: "PERSISTED", evidence: { opened_by: "register" } }],
    };
    expect(redactStableIds(doc)).toEqual({
      ...doc,
      record: {
        effect_id: "a".repeat(64),
        stable_ids: { order_id: stableIdValueDigest("9410"), customer_ref: stableIdValueDigest("C-0007") },
        contract_canonical: "sha256:" + createHash("sha256").update(doc.record.contract_canonical, "utf8").digest("hex"),
        contract_canonical_redacted: true,
        scope: "s",
      },
    });
  });

  it("digests a raw value wherever it appears whole, and embedded in longer free text", () => {
    const out = redactStableIds({
      record: { stable_ids: { order_id: "ORDER-9410" } },
      probes: [
        {
          query_keys: [{ kind: "stable_id", name: "order_id", value: "ORDER-9410" }],
          evidence: { endpoint: "GET /orders/ORDER-9410/status" },
        },
      ],
    });
    const text = JSON.stringify(out);
    expect(text).not.toContain("ORDER-9410");
    expect(out.probes[0]?.query_keys[0]?.value).toBe(sha("ORDER-9410"));
    expect(out.probes[0]?.evidence.endpoint).toBe(`GET /orders/${sha("ORDER-9410")}/status`);
  });

  it("leaves digests, ids and state names intact", () => {
    const digest = sha("x");
    const redactor = new StableIdRedactor([digest.slice(10, 14), "SETTLED_COMMITTED", "OK"]);
    const doc = {
      response_digest: digest,
      frontier: "SETTLED_COMMITTED",
      transport_outcome: "OK",
      note: "OK then",
    };
    expect(redactor.redact(doc)).toEqual(doc);
  });

  it("does not rewrite inside text for values shorter than the embedded minimum", () => {
    const short = "C".repeat(MIN_EMBEDDED_LENGTH - 1);
    const out = new StableIdRedactor([short]).redact({ a: short, b: `x${short}y` });
    expect(out).toEqual({ a: sha(short), b: `x${short}y` });
  });

  it("never leaves a raw value of length ≥ the minimum in the serialised output (property)", () => {
    // Upper-case first and last letters: no occurrence can straddle an inserted digest (which
    // is lower-case hex after "sha256:"), so a remaining occurrence would be a real leak.
    const raw = fc.stringMatching(/^[A-Z][A-Z0-9-]{2,10}[A-Z]$/);
    fc.assert(
      fc.property(
        raw,
        fc.string({ maxLength: 10 }),
        fc.string({ maxLength: 10 }),
        (value, before, after) => {
          const out = redactStableIds({
            record: { stable_ids: { k: value } },
            evidence: { text: `${before}${value}${after}`, list: [value] },
          });
          const json = JSON.stringify(out);
          expect(json.includes(value)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
