// A task's diff on the page: fetched from the server (its commit once applied, else its
// worktree), each line coloured by its kind (file header, hunk, added, removed, context).
// Hand-written on purpose: a unified diff's line kinds are its first characters, and the page
// is one self-contained bundle under a strict CSP.
import { esc } from './format.js';

/** What `/diff` answers. */
export interface DiffView {
  source: string;
  text: string;
  truncated: boolean;
}

function lineClass(line: string, inHeader: boolean): string {
  if (line.startsWith('diff --git') || line.startsWith('commit ')) return 'd-file';
  if (inHeader) return 'd-meta';
  if (line.startsWith('@@')) return 'd-hunk';
  if (line.startsWith('+')) return 'd-add';
  if (line.startsWith('-')) return 'd-del';
  if (line.startsWith('\\')) return 'd-meta';
  return 'd-ctx';
}

/** The diff as coloured lines, with the files it touches and +/- counts. */
export function diffHtml(diff: DiffView): string {
  if (!diff.text.trim())
    return `<p class="hint">no change${diff.source ? ` (${esc(diff.source)})` : ''}</p>`;
  let inHeader = false;
  let added = 0;
  let removed = 0;
  const files: string[] = [];
  const lines = diff.text.split('\n').map((line) => {
    // a commit's message and stat come before its first file: not diff lines
    if (line.startsWith('commit ')) inHeader = true;
    if (line.startsWith('diff --git')) {
      inHeader = true;
      files.push(line.replace(/^diff --git a\/(.*) b\/.*$/, '$1'));
    } else if (line.startsWith('@@')) inHeader = false;
    const cls = lineClass(line, inHeader && !/^(diff --git|commit )/.test(line));
    if (cls === 'd-add') added += 1;
    if (cls === 'd-del') removed += 1;
    return `<span class="${cls}">${esc(line)}</span>`;
  });
  return (
    `<p class="diff-head">${esc(diff.source)} · ${files.length} file(s) · <span class="d-add">+${added}</span> <span class="d-del">−${removed}</span>${diff.truncated ? ' · <i>cut: the repository has the rest</i>' : ''}</p>` +
    `<pre class="diff">${lines.join('\n')}</pre>`
  );
}
