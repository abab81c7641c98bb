/**
 * Child process for the cross-process determinism test: reads identity tuples (JSON array)
 * on stdin and prints their intent ids (JSON array) on stdout.
 */
import { deriveIdentity, type IdentityTuple } from "../../../src/core/identity.js";

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const tuples = JSON.parse(Buffer.concat(chunks).toString("utf8")) as IdentityTuple[];
process.stdout.write(JSON.stringify(tuples.map((t) => deriveIdentity(t).intentId)));
