/**
 * workbench/assets/app-css — the one stylesheet, served as /assets/app.css (CSP allows
 * styles from 'self' only, never inline). Kept in code so nothing reads the filesystem at run
 * time. Layout works from 390 px up: tables become stacked cards under 760 px and the
 * timeline scrolls sideways. State colours are custom properties set by `s-<STATE>` classes
 * and shared by badges, timeline markers and segments. Imports: nothing.
 */
export const APP_CSS = `
:root {
  --fg: #1d2330; --muted: #5b6474; --bg: #f6f7f9; --card: #ffffff; --line: #d9dde4; --accent: #2b5fb4;
  --font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 14px/1.45 var(--font); color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
code, .json, time { font-family: var(--mono); font-size: 12.5px; }
h1 { font-size: 22px; margin: 8px 0 14px; word-break: break-all; }
h2 { font-size: 17px; margin: 26px 0 8px; }
h2 small { color: var(--muted); font-weight: normal; }
main { padding: 12px 20px 32px; max-width: 1600px; margin: 0 auto; }
footer { color: var(--muted); font-size: 12px; padding: 12px 20px 24px; text-align: center; }

.demo-banner { position: sticky; top: 0; z-index: 10; background: #7a2e0e; color: #fff; padding: 8px 20px; font-size: 14px; text-align: center; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 20px; padding: 10px 20px; background: #1d2330; color: #fff; }
.top a { color: #fff; text-decoration: none; }
.brand { font-weight: 700; font-size: 16px; }
.brand span { font-weight: 400; opacity: .75; }
.top nav { display: flex; gap: 14px; flex-wrap: wrap; }
.top nav a { padding: 2px 0; border-bottom: 2px solid transparent; }
.top nav a[aria-current="page"] { border-bottom-color: #9cc0ff; }
.mode { margin-left: auto; font-size: 12px; opacity: .8; }

.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px 14px; align-items: end;
  background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px; margin-bottom: 14px; }
.filters label { display: flex; flex-direction: column; gap: 3px; font-size: 12px; color: var(--muted); }
.filters input, .filters select { font: inherit; color: var(--fg); padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; min-width: 0; }
.filters .actions { display: flex; gap: 12px; align-items: center; }
button { font: inherit; padding: 6px 16px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }

.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
table.list { border-collapse: collapse; width: 100%; }
table.list th, table.list td { text-align: left; vertical-align: top; padding: 7px 10px; border-bottom: 1px solid var(--line); }
table.list th { font-size: 12px; color: var(--muted); font-weight: 600; background: #fafbfc; white-space: nowrap; }
table.list tr:last-child td { border-bottom: 0; }
table.list tr:target td { background: #fff7d6; }
td .json { display: inline-block; max-width: 420px; white-space: pre-wrap; word-break: break-all; color: #3b4250; }
.none { color: var(--muted); }
.empty { color: var(--muted); background: var(--card); border: 1px dashed var(--line); border-radius: 8px; padding: 14px; }
.ok { color: #1f7a3f; } .warn { color: #a4321b; }
dl.ids { display: grid; grid-template-columns: auto 1fr; gap: 0 8px; margin: 0; }
dl.ids dt { color: var(--muted); } dl.ids dd { margin: 0; }
ul.citations { margin: 4px 0 0; padding-left: 16px; }
.pager { margin-top: 12px; }
.hint { color: var(--muted); max-width: 900px; }
.error { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 18px; }

.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font: 600 11.5px/1.6 var(--mono); color: #fff; background: var(--c, #6b7280); white-space: nowrap; }
.outcome { font: 600 12px var(--mono); color: var(--c, var(--fg)); }
.s-INTENDED { --c: #7b8494; } .s-PERSISTED { --c: #55627a; } .s-DISPATCHED { --c: #2b5fb4; }
.s-AMBIGUOUS { --c: #b8860b; } .s-SETTLED_COMMITTED { --c: #1f7a3f; } .s-SETTLED_FAILED { --c: #b3261e; } .s-CANCELLED { --c: #8d8d8d; }
.s-CONFIRMED_UNIQUE { --c: #1f7a3f; } .s-DUPLICATE { --c: #b3261e; } .s-LOST { --c: #c2410c; } .s-ORPHANED { --c: #7e22ce; }
.s-CONTRADICTED { --c: #be185d; } .s-UNRECONCILED { --c: #8d8d8d; }
.s-OPEN { --c: #b8860b; } .s-ACCEPTED_AS_IS { --c: #0f766e; } .s-CLOSED { --c: #55627a; } .s-ESCALATED_HUMAN { --c: #b3261e; }
.s-COMPENSATED { --c: #2b5fb4; } .s-REDISPATCHED { --c: #4338ca; }
.s-PRESENT, .o-PRESENT, .o-OK, .o-ALLOW { --c: #1f7a3f; } .s-ABSENT, .o-ABSENT, .o-FAILED, .o-DENY { --c: #b3261e; }
.s-INDETERMINATE, .o-INDETERMINATE { --c: #7b8494; } .o-TIMEOUT, .o-LOST { --c: #b8860b; }
.tier { font: 700 12px var(--mono); padding: 1px 6px; border-radius: 4px; border: 1px solid currentColor; }
.t-C1 { color: #1f7a3f; } .t-C2 { color: #2b5fb4; } .t-C3 { color: #a4321b; }

.effect .dimensions { display: flex; flex-wrap: wrap; gap: 10px 26px; margin: 4px 0 14px; }
.effect .dimensions div { display: flex; flex-direction: column; gap: 2px; }
.dim-name { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
dl.record { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px; margin: 0; }
dl.record dt { color: var(--muted); } dl.record dd { margin: 0; min-width: 0; word-break: break-all; }

.timeline-scroll { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
svg.timeline { display: block; font-family: var(--font); }
svg.timeline .grid { stroke: #e6e9ee; stroke-dasharray: 3 3; }
svg.timeline .tick { font: 11px var(--mono); fill: var(--muted); text-anchor: middle; }
svg.timeline .tick.day { font-size: 10px; }
svg.timeline .track-label { font-weight: 700; font-size: 13px; fill: var(--fg); }
svg.timeline .track-hint { font-size: 10.5px; fill: var(--muted); }
svg.timeline .track-line { stroke: #cfd4dc; stroke-width: 2; }
svg.timeline .empty-track { font-size: 11.5px; fill: var(--muted); font-style: italic; }
svg.timeline .seg { stroke: var(--c, #999); stroke-width: 5; stroke-linecap: round; }
svg.timeline .mark { fill: var(--c, #999); stroke: #fff; stroke-width: 2; }
svg.timeline .mark.hollow { fill: #fff; stroke: var(--c, #999); stroke-width: 2.5; }
svg.timeline .ev-label { font: 600 10.5px var(--mono); fill: var(--c, var(--fg)); text-anchor: middle; }
svg.timeline .ev-sub { font-size: 10px; fill: var(--muted); text-anchor: middle; }
svg.timeline a.ev-link:hover .mark, svg.timeline a.ev-link:focus .mark { stroke: #1d2330; }

@media (max-width: 760px) {
  main { padding: 10px 10px 24px; }
  .top { padding: 10px; }
  .mode { margin-left: 0; width: 100%; }
  h1 { font-size: 18px; }
  .filters { grid-template-columns: 1fr 1fr; }
  .table-wrap { overflow-x: visible; background: transparent; border: 0; }
  table.list, table.list tbody, table.list tr, table.list td { display: block; width: 100%; }
  table.list thead { display: none; }
  table.list tr { background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin-bottom: 10px; padding: 6px 0; }
  table.list td { position: relative; border-bottom: 0; padding: 4px 10px 4px calc(36% + 14px); min-height: 28px; word-break: break-all; }
  table.list td::before { content: attr(data-label); position: absolute; left: 10px; width: 36%; color: var(--muted); font-size: 12px; word-break: normal; }
  .demo-banner { position: static; padding: 8px 10px; font-size: 13px; }
  td .json { max-width: 100%; }
  dl.record { grid-template-columns: 1fr; }
  dl.record dt { margin-top: 6px; }
}
`;
