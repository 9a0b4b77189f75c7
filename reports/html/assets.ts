/**
 * The report's own CSS and script: constants written here, never built from run data (the data is
 * rendered, escaped, into the document; the script only reads data attributes).
 */

export const REPORT_CSS = `
:root { --pass:#2e7d32; --nonstrict:#b26a00; --fail:#c62828; --timeout:#6a1b9a; --info:#546e7a; --unsup:#9e9e9e; --error:#212121; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1400px; padding: 16px 24px 48px; color: #1b1b1b; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 24px 0 8px; } h4 { margin: 14px 0 6px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #444; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 12px; }
/* Long lines wrap (the text is unchanged): a box that scrolled sideways would hide the keys, and on a phone most of each line. */
pre { background: #f6f7f9; padding: 8px 10px; border-radius: 6px; overflow: auto; max-height: 420px; white-space: pre-wrap; overflow-wrap: anywhere; }
.muted { color: #666; } .right { margin-left: auto; }
.badge { display: inline-block; min-width: 92px; text-align: center; padding: 1px 6px; border-radius: 4px; color: #fff; font-weight: 600; font-size: 11px; }
.v-PASS .badge, .badge.v-PASS { background: var(--pass); } .badge.v-NON_STRICT { background: var(--nonstrict); } .badge.v-FAIL { background: var(--fail); }
.badge.v-TIMEOUT { background: var(--timeout); } .badge.v-INFORMATIONAL { background: var(--info); } .badge.v-UNSUPPORTED { background: var(--unsup); } .badge.v-ERROR { background: var(--error); }
.counts { display: flex; gap: 8px; flex-wrap: wrap; margin: 12px 0 4px; }
.count { border: 1px solid #ddd; border-left-width: 6px; border-radius: 6px; padding: 6px 12px; min-width: 110px; }
.count .n { display: block; font-size: 22px; font-weight: 700; } .count .k { font-size: 11px; color: #555; }
.count.v-PASS { border-left-color: var(--pass); } .count.v-NON_STRICT { border-left-color: var(--nonstrict); } .count.v-FAIL { border-left-color: var(--fail); }
.count.v-TIMEOUT { border-left-color: var(--timeout); } .count.v-INFORMATIONAL { border-left-color: var(--info); } .count.v-UNSUPPORTED { border-left-color: var(--unsup); } .count.v-ERROR { border-left-color: var(--error); }
table { border-collapse: collapse; } th, td { text-align: left; padding: 4px 8px; vertical-align: top; }
.matrix td, .matrix th { border: 1px solid #e3e3e3; } .matrix .cell { padding: 0; }
.cell-btn { all: unset; cursor: pointer; display: block; padding: 4px 8px; color: #fff; font-weight: 600; font-size: 12px; }
.cell.v-PASS { background: var(--pass); } .cell.v-NON_STRICT { background: var(--nonstrict); } .cell.v-FAIL { background: var(--fail); } .cell.v-TIMEOUT { background: var(--timeout); }
.cell.v-INFORMATIONAL { background: var(--info); } .cell.v-UNSUPPORTED { background: var(--unsup); } .cell.v-ERROR { background: var(--error); } .cell .muted { color: #eee; }
.filters { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin: 8px 0 12px; position: sticky; top: 0; background: #fff; padding: 6px 0; z-index: 2; }
.vf { border: 1px solid #bbb; background: #fafafa; border-radius: 14px; padding: 2px 10px; cursor: pointer; font-size: 12px; }
.vf[aria-pressed="true"] { background: #263238; border-color: #263238; color: #fff; }
#text-filter { min-width: 280px; padding: 4px 8px; }
details.scenario { border: 1px solid #ddd; border-left: 6px solid var(--info); border-radius: 6px; margin: 6px 0; }
details.scenario.v-PASS { border-left-color: var(--pass); } details.scenario.v-FAIL { border-left-color: var(--fail); } details.scenario.v-NON_STRICT { border-left-color: var(--nonstrict); }
details.scenario.v-TIMEOUT { border-left-color: var(--timeout); } details.scenario.v-ERROR { border-left-color: var(--error); } details.scenario.v-UNSUPPORTED { border-left-color: var(--unsup); }
details.scenario > summary { display: flex; gap: 10px; align-items: center; padding: 6px 10px; cursor: pointer; list-style: none; }
details.scenario > summary::-webkit-details-marker { display: none; }
details.scenario.unexpected > summary { background: #fff3f3; }
.flag { background: #fff; color: var(--fail); border: 1px solid var(--fail); border-radius: 4px; font-size: 11px; padding: 0 4px; }
.sid { font-weight: 600; } .title { color: #333; }
.body { padding: 4px 14px 14px; border-top: 1px solid #eee; overflow-wrap: anywhere; } .body table { max-width: 100%; } .body th { overflow-wrap: normal; } .checks { width: 100%; }
.grid2 { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 18px; }
.checks td { border-bottom: 1px solid #f0f0f0; } .evidence { margin: 4px 0 0; padding-left: 18px; color: #444; }
.authority { margin-top: 4px; font-size: 11px; } .basis { display: inline-block; border: 1px solid #bbb; border-radius: 3px; padding: 0 4px; color: #333; }
.basis-harm { border-color: var(--fail); color: var(--fail); } .basis-up-front, .basis-duty, .basis-record { border-color: var(--nonstrict); color: #7a4a00; }
.sources { list-style: none; margin: 4px 0 0; padding: 0; max-width: 340px; } .sources li { margin: 2px 0; color: #444; }
.authority q { display: block; color: #666; font-style: italic; max-width: 340px; margin-top: 2px; }
.lvl { display: inline-block; border-radius: 3px; padding: 0 4px; font-weight: 700; color: #fff; background: #78909c; }
.lvl-MUST, .lvl-security { background: #1565c0; } .lvl-SHOULD { background: #00838f; } .lvl-field { background: #8d6e63; } .lvl-convention, .lvl-vendor { background: #9e9e9e; }
.src { display: inline-block; border-radius: 3px; padding: 0 3px; font-size: 10px; border: 1px solid #ccc; color: #555; } .src-claims { border-style: dashed; }
.kv th { color: #555; font-weight: 600; } .kv td, .kv th { border-bottom: 1px solid #f0f0f0; }
.json mark { background: #fff59d; border-radius: 3px; } .json .k { color: #1a237e; } .json .s { color: #2e5d34; }
.diagram { overflow-x: auto; border: 1px solid #eee; border-radius: 6px; }
.diagram .lane { font-weight: 600; font-size: 12px; fill: #333; } .diagram .label { font-size: 11px; fill: #222; } .diagram .seq { font-size: 10px; fill: #888; }
.diagram .fail .label { fill: #c62828; } .diagram .note .label { fill: #455a64; font-style: italic; }
.diagram .forged .label { fill: #6a1b9a; font-style: italic; } .diagram .duplicate .label { fill: #e65100; }
.unexpected-list li, .not-run li { margin: 3px 0; }
#duties article.duty { max-width: 90ch; } #duties article.duty h3 { font-size: 14px; margin: 12px 0 4px; } #duties article.duty:target { outline: 2px solid #8d6e63; } footer { margin-top: 32px; font-size: 12px; } footer table.levels { border-collapse: collapse; margin-top: 8px; display: block; max-width: 100%; overflow-x: auto; } footer table.levels td { overflow-wrap: anywhere; } footer table.levels td, footer table.levels th { text-align: left; padding: 2px 8px; vertical-align: top; }
.diagram .legend { font-size: 11px; margin: 2px 8px 6px; }
.diagram .body-link .label { text-decoration: underline; cursor: pointer; }
.glue { border-left: 3px solid var(--info); background: #eceff1; padding: 4px 10px; margin: 0 0 10px; font-size: 13px; }
.unrendered { border-left: 3px solid var(--fail); background: #ffebee; padding: 4px 10px; margin: 0 0 10px; font-size: 13px; } .json .elided { color: #757575; font-style: italic; }
.coverage.incomplete { border-left: 3px solid var(--fail); background: #ffebee; padding: 4px 10px; }
.lag { border-left: 3px solid var(--nonstrict); background: #fff8e1; padding: 4px 10px; margin-bottom: 10px; font-size: 13px; } .attempts { margin: 4px 0; padding-left: 20px; } .attempts li { margin: 3px 0; }
.bodies { margin: 0 8px 8px; font-size: 12px; } .wire-body p { margin: 8px 0 2px; overflow-wrap: anywhere; } .wire-body pre { max-height: 320px; overflow: auto; margin: 0; }
.matrix-wrap { overflow-x: auto; } .cell-btn .cn { font-weight: 800; } .cell-btn .cc { white-space: nowrap; }
.json { position: relative; } .card-bytes { font-size: 12px; margin: 0 0 4px; }
header code, .unexpected-list li, .not-run li, .sid { overflow-wrap: anywhere; } .kv td, .checks td { overflow-wrap: break-word; }
@media (max-width: 900px) { .grid2 { grid-template-columns: minmax(0, 1fr); } }
@media (max-width: 600px) {
  body { padding: 10px 10px 32px; } h1 { font-size: 18px; }
  .count { min-width: 0; flex: 1 1 28%; padding: 4px 8px; } .count .n { font-size: 18px; }
  #text-filter { min-width: 0; flex: 1 1 100%; }
  .filters { position: static; }
  details.scenario > summary { flex-wrap: wrap; gap: 4px 8px; } .right { margin-left: 0; } .badge { min-width: 0; }
  .body { padding: 4px 8px 10px; }
  .checks, .checks tbody, .checks tr, .checks td { display: block; } .checks td { padding: 2px 4px; border: 0; } .checks tr { border-bottom: 1px solid #eee; padding: 4px 0; }
  /* The matrix as one block per rule, each cell on its own line under its task class: a phone shows every count without scrolling sideways. */
  .matrix, .matrix tbody, .matrix tr, .matrix th, .matrix td { display: block; } .matrix thead, .matrix td.empty { display: none; }
  .matrix tr { margin: 0 0 8px; } .matrix td.cell { display: flex; border-top: 0; }
  .matrix td.cell::before { content: attr(data-class); flex: 0 0 42%; padding: 4px 8px; color: #fff; font-size: 12px; }
  .cell-btn { flex: 1 1 auto; min-width: 0; } .cell-btn .cc { white-space: normal; }
  .sources, .authority q { max-width: none; } .kv td, .checks td { overflow-wrap: anywhere; }
}
`;

export const REPORT_SCRIPT = `
(function () {
  var panels = Array.prototype.slice.call(document.querySelectorAll('details.scenario'));
  var verdictButtons = Array.prototype.slice.call(document.querySelectorAll('[data-filter-verdict]'));
  var rule = document.getElementById('rule-filter');
  var dialect = document.getElementById('dialect-filter');
  var text = document.getElementById('text-filter');
  var onlyUnexpected = document.getElementById('only-unexpected');
  var shown = document.getElementById('shown');
  function apply() {
    // The verdicts pressed; none pressed (the "all" chip) shows every verdict.
    var active = {}, any = false;
    verdictButtons.forEach(function (b) {
      var k = b.getAttribute('data-filter-verdict');
      if (k && b.getAttribute('aria-pressed') === 'true') { active[k] = true; any = true; }
    });
    var q = (text.value || '').toLowerCase().trim();
    var n = 0;
    panels.forEach(function (p) {
      var ok = (!any || active[p.getAttribute('data-verdict')] === true)
        && (!rule.value || p.getAttribute('data-rule') === rule.value)
        && (!dialect || !dialect.value || p.getAttribute('data-dialect') === dialect.value)
        && (!onlyUnexpected.checked || p.getAttribute('data-unexpected') === 'true')
        && (!q || p.getAttribute('data-text').indexOf(q) !== -1);
      p.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n + ' of ' + panels.length + ' shown';
  }
  // A click shows only that verdict, and a second click on it shows them all again; with Ctrl, Cmd or
  // Shift it adds the verdict to (or takes it from) those shown. The "all" chip clears the selection.
  function select(k, add) {
    var was = {};
    verdictButtons.forEach(function (b) { was[b.getAttribute('data-filter-verdict')] = b.getAttribute('aria-pressed') === 'true'; });
    var only = k && was[k] && verdictButtons.every(function (b) { var x = b.getAttribute('data-filter-verdict'); return !x || x === k || !was[x]; });
    var any = false;
    verdictButtons.forEach(function (b) {
      var x = b.getAttribute('data-filter-verdict');
      if (!x) return;
      var on = !k ? false : add ? (x === k ? !was[x] : was[x]) : x === k && !only;
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
      if (on) any = true;
    });
    verdictButtons.forEach(function (b) { if (!b.getAttribute('data-filter-verdict')) b.setAttribute('aria-pressed', any ? 'false' : 'true'); });
    apply();
  }
  verdictButtons.forEach(function (b) {
    b.addEventListener('click', function (e) { select(b.getAttribute('data-filter-verdict'), e.ctrlKey || e.metaKey || e.shiftKey); });
  });
  Array.prototype.slice.call(document.querySelectorAll('.cell-btn')).forEach(function (c) {
    c.addEventListener('click', function () { rule.value = c.getAttribute('data-rule'); apply(); document.getElementById('scenarios').scrollIntoView(); });
  });
  rule.addEventListener('change', apply);
  if (dialect) dialect.addEventListener('change', apply);
  text.addEventListener('input', apply);
  onlyUnexpected.addEventListener('change', apply);
  // Opening a scenario brings the card's first highlighted field into view inside its scrolling box.
  panels.forEach(function (p) {
    p.addEventListener('toggle', function () {
      if (!p.open) return;
      Array.prototype.slice.call(p.querySelectorAll('pre.json')).forEach(function (pre) {
        var m = pre.querySelector('mark');
        if (!m) return;
        // Only down: the box wraps long lines, so the keys at the left stay in sight.
        pre.scrollTop = Math.max(0, m.offsetTop - 24);
      });
    });
  });
  // A link to a scenario, or to a body under its diagram, opens what holds it.
  function openHash() {
    var el = location.hash && document.getElementById(location.hash.slice(1));
    if (!el) return;
    for (var d = el; d; d = d.parentElement) if (d.tagName === 'DETAILS') d.open = true;
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', openHash);
  openHash();
  apply();
})();
`;
