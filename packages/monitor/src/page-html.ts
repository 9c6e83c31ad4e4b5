import type { PageAssets } from './assets.js';

/** The page: one HTML document with its bundled script and stylesheet inline. */
export function renderPage(assets: PageAssets, nonce: string): string {
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
<header id="top"><h1>switchyard</h1><span id="run">connecting…</span><span id="live" class="off">offline</span></header>
<section id="totals"></section>
<main>
  <section id="lanes" aria-label="tasks by group"></section>
  <aside id="detail" aria-label="task detail"><p class="hint">Select a task.</p></aside>
</main>
<section id="escalations" aria-label="open escalations"></section>
<section id="claims"></section>
<footer><button id="raw-events" type="button">raw events</button> <button id="raw-snapshot" type="button">raw snapshot</button><pre id="raw" hidden></pre></footer>
<script nonce="${nonce}">${assets.script.replaceAll('</script', '<\\/script')}</script>
</body>
</html>
`;
}
