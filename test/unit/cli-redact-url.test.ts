import { describe, expect, it } from "vitest";
import { redactUrl } from "../../src/cli/ledger-options.js";

describe("redactUrl (database URLs printed by the CLI)", () => {
  it("removes a userinfo password", () => {
    expect(redactUrl("postgres://app:s3cret@db:5432/irrevon")).toBe("postgres://app@db:5432/irrevon");
  });

  it("redacts password-like query parameters (libpq style)", () => {
    const shown = redactUrl("postgresql://127.0.0.1:5432/irrevon?user=app&password=s3cret&sslpassword=k3y&sslmode=require");
    expect(shown).not.toContain("s3cret");
    expect(shown).not.toContain("k3y");
    expect(shown).toContain("sslmode=require");
    expect(shown).toContain("user=app");
  });

  it("never echoes an unparseable URL", () => {
    expect(redactUrl("not a url with s3cret")).toBe("<unparseable url>");
  });
});
