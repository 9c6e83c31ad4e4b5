import type { PageAssets } from './assets.js';

/**
 * The page: one HTML document with its bundled script and stylesheet inline, and the
 * snapshot of the moment it was served as inert JSON, so the first paint already shows the
 * run (the live stream only brings what changed after).
 */
export function renderPage(assets: PageAssets, nonce: string, snapshotJson: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>switchyard monitor</title>
<style nonce="${nonce}">${assets.style}</style>
</head>
<body>
<header id="top"><h1>switchyard</h1><span id="run"></span><span id="live" class="off">offline</span></header>
<section id="run-state" aria-live="polite"></section>
<p id="action-result" role="status" hidden></p>
<section id="totals"></section>
<section id="tools"></section>
<main>
  <section id="lanes" aria-label="tasks by group"></section>
  <aside id="detail" aria-label="task detail"><p class="hint">Select a task.</p></aside>
</main>
<section id="escalations" aria-label="open escalations"></section>
<section id="claims"></section>
<footer><button id="raw-events" type="button">raw events</button> <button id="raw-snapshot" type="button">raw snapshot</button><pre id="raw" hidden></pre></footer>
<script type="application/json" id="initial-snapshot">${inertJson(snapshotJson)}</script>
<script nonce="${nonce}">${assets.script.replaceAll('</script', '<\\/script')}</script>
</body>
</html>
`;
}

/** JSON that cannot end its script element or open markup: `<`, `>` and `&` as escapes. */
function inertJson(json: string): string {
  return json.replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
