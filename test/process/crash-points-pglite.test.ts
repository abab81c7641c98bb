/**
 * Crash suite on pglite (a PGlite data directory owned by one child at a time (the test reads it between children)): for every crash seam the engine hits, engine child processes
 * talk to the reference destination over HTTP, one is SIGKILLed at the seam, a new one (another
 * worker id; the dead one's short lease expires) recovers. Afterwards: no duplicate, no lost
 * legitimate effect, every destination effect maps to a record, ≤1 write request per operation
 * id, nothing open, auditor and history checker clean; a kill before persistence leaves no
 * record and no effect. Control: a naive retry-on-restart client after the same crash is caught.
 * Scenarios: test/support/history/crash-scenarios.ts.
 */
import { defineCrashSuite } from "../support/history/crash-scenarios.js";

defineCrashSuite("pglite");
