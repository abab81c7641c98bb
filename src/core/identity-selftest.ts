/**
 * core/identity-selftest — the identity procedure checked against external conformance
 * vectors at run time (`irrevon doctor`): the RFC 8785 appendix example and the demo's
 * intent tuple, with digests produced by four independent JCS implementations
 * (test/fixtures/identity-vectors/). A library upgrade that changed canonical bytes would
 * change every intent id; this catches it on the machine where it would happen.
 */
import { canonicalJson, sha256Hex } from "./canonical.js";
import { deriveIdentity } from "./identity.js";

export interface SelfTestResult {
  readonly name: string;
  readonly expected: string;
  readonly actual: string;
  readonly ok: boolean;
}

// The RFC 8785 appendix value (vector v1). Numbers as JSON.parse reads them from the file.
const V1 = JSON.parse(
  '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
) as unknown;
const V1_DIGEST = "2d5e01a318d0f0879ab568c4be289c8b1f64ef8921a53c6277d5e069978baacb";
const V2_DIGEST = "0bb7e8d64711e0cc5ec277fb9bb64d3d321fdd53dd92b8ebb1752fde822785f5";

/** Runs both vectors; every result must be ok. */
export function identitySelfTest(): SelfTestResult[] {
  const v1 = sha256Hex(canonicalJson(V1));
  const v2 = deriveIdentity({
    effect_type: "order.create",
    scope: "acme-store/prod",
    stable_ids: { order_id: "9410", customer_ref: "C-0007" },
  }).intentId;
  return [
    { name: "v1-rfc8785-appendix", expected: V1_DIGEST, actual: v1, ok: v1 === V1_DIGEST },
    { name: "v2-intent-tuple", expected: V2_DIGEST, actual: v2, ok: v2 === V2_DIGEST },
  ];
}
