/**
 * test/support/history/proof-ledger — a ledger that engine child processes can share with
 * the test. Postgres: a fresh database per test (openTestLedger), which the test reads at
 * any time. PGlite: a migrated data directory copied from a per-process template; the child
 * owns it while it runs (one owner per directory), so the test reads it only between
 * children, through `withReader`.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DbRole, type Db } from "../../../src/db/db.js";
import { migrate } from "../../../src/db/migrator.js";
import { openPglite } from "../../../src/db/pglite-driver.js";
import { auditLedger, type Violation } from "../../../src/ledger/auditor.js";
import { MIGRATIONS_HASH, openTestLedger, type Backend } from "../databases.js";

export interface ProofLedger {
  readonly backend: Backend;
  /** Environment that points an engine child at this ledger. */
  readonly env: Readonly<Record<string, string>>;
  /** Postgres only: the superuser handle on this test's database. */
  readonly superuserUrl: string | undefined;
  /** Runs `fn` with an irrevon_read handle. PGlite: no engine child may be running. */
  withReader<T>(fn: (read: Db) => Promise<T>): Promise<T>;
  /** Runs `fn` with a superuser handle (PGlite: same restriction). */
  withSuperuser<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

let template: Promise<string> | undefined;

async function buildPgliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), `irrevon-proof-tpl-${MIGRATIONS_HASH}-${process.pid}`);
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  const root = await openPglite({ dataDir: dir });
  try {
    await migrate(root);
  } finally {
    await root.close();
  }
  return dir;
}

async function openPgliteProofLedger(): Promise<ProofLedger> {
  template ??= buildPgliteTemplate();
  const source = await template;
  const parent = mkdtempSync(join(tmpdir(), "irrevon-proof-"));
  const dataDir = join(parent, "ledger");
  cpSync(source, dataDir, { recursive: true });
  const withRoot = async <T>(role: DbRole | null, fn: (db: Db) => Promise<T>): Promise<T> => {
    const root = await openPglite({ dataDir });
    try {
      return await fn(role === null ? root : root.as(role));
    } finally {
      await root.close();
    }
  };
  return {
    backend: "pglite",
    env: { IRREVON_DATA_DIR: dataDir },
    superuserUrl: undefined,
    withReader: (fn) => withRoot(DbRole.read, fn),
    withSuperuser: (fn) => withRoot(null, fn),
    close: () => {
      rmSync(parent, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

async function openPostgresProofLedger(): Promise<ProofLedger> {
  const ledger = await openTestLedger("postgres");
  const url = ledger.url ?? "";
  return {
    backend: "postgres",
    env: { IRREVON_DATABASE_URL: url },
    superuserUrl: url,
    withReader: (fn) => fn(ledger.read),
    withSuperuser: (fn) => fn(ledger.superuser),
    close: () => ledger.close(),
  };
}

/** A fresh ledger engine children can use. Always `close()` it. */
export function openProofLedger(backend: Backend): Promise<ProofLedger> {
  return backend === "postgres" ? openPostgresProofLedger() : openPgliteProofLedger();
}

/** The auditor's verdict on the whole ledger. */
export function auditProofLedger(ledger: ProofLedger): Promise<Violation[]> {
  return ledger.withReader((read) => auditLedger(read));
}
