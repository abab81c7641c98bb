/**
 * workbench/views/layout — the page frame: one stylesheet from /assets/app.css, no script,
 * no external asset (the favicon is an empty data: URL so the browser asks for nothing), a
 * navigation bar, and — when the data is demo or fixture data — a banner on every page that
 * cannot be dismissed. Imports: workbench.
 */
import { html, type SafeHtml } from "./html.js";

/** The sections of the navigation bar. */
export type Section = "effects" | "findings" | "adapters" | "none";

/** What every page needs besides its content. */
export interface PageFrame {
  readonly title: string;
  readonly section: Section;
  readonly isDemo: boolean;
  readonly asOf?: string;
}

function navLink(href: string, label: string, current: boolean): SafeHtml {
  return current
    ? html`<a href="${href}" aria-current="page">${label}</a>`
    : html`<a href="${href}">${label}</a>`;
}

/** Wraps `content` in the page frame. */
export function page(frame: PageFrame, content: SafeHtml): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${frame.title} · Irrevon workbench</title>
        <link rel="stylesheet" href="/assets/app.css" />
        <link rel="icon" href="data:," />
      </head>
      <body>
        ${
          frame.isDemo
            ? html`<div class="demo-banner" role="status" data-banner="demo">
                <strong>Demo data.</strong> Everything on these pages was produced by a demo or test
                fixture, not by a real destination.
              </div>`
            : ""
        }
        <header class="top">
          <a class="brand" href="/effects">Irrevon <span>workbench</span></a>
          <nav aria-label="sections">
            ${navLink("/effects", "Effects", frame.section === "effects")}
            ${navLink("/findings", "Findings", frame.section === "findings")}
            ${navLink("/adapters", "Destinations", frame.section === "adapters")}
          </nav>
          <span class="mode">read-only · loopback</span>
        </header>
        <main>${content}</main>
        <footer>
          ${frame.asOf === undefined ? "" : html`<span>as of ${frame.asOf}</span> · `}<span
            >stable-id values are shown as sha256 digests; keys are kept</span
          >
        </footer>
      </body>
    </html> `;
}
