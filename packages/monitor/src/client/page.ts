// The monitor page: renders the snapshots the server pushes (server-sent events) and, for
// the selected task, its history, usage, raw payloads and a live tail of its running attempt.
// Self-contained: bundled into the page, no external resource.

import { onActionClick, resolveFormHtml, stopRunHtml, taskActionsHtml } from './actions.js';
import { attemptsHtml, stageTimesHtml } from './attempts.js';
import { isFolded, laneCounts, setFolded } from './collapse.js';
import { type DiffView, diffHtml } from './diff-view.js';
import { applyFilter, filterBarHtml, readFilter } from './filter.js';
import { ago, cost, esc, num, time } from './format.js';
import { commandHtml, gatesHtml } from './gates.js';
import { runStateHtml } from './run-state.js';
import type { FailoverView, Patch, Snapshot, TaskView, Totals } from './types.js';

const token = new URLSearchParams(location.search).get('token') ?? '';
const q = (path: string, params: Record<string, string> = {}) =>
  `${path}?${new URLSearchParams({ ...params, token }).toString()}`;
const $ = (id: string) => document.getElementById(id)!;

let snap: Snapshot | undefined;
let selected: string | undefined = decodeURIComponent(location.hash.slice(1)) || undefined;
let tail: { attempt: string; source: EventSource } | undefined;
let renders = 0;
/** The monitor said it stopped (the run it served ended): the page keeps the last state. */
let monitorEnded = false;

function connect(): void {
  const source = new EventSource(q('/events'));
  source.addEventListener('snapshot', (e) => {
    const next = JSON.parse((e as MessageEvent).data) as Snapshot;
    // The page was served with this very snapshot: nothing to draw again.
    const same = snap?.seq === next.seq;
    snap = next;
    if (!same) render();
  });
  source.addEventListener('patch', (e) => {
    const patch = JSON.parse((e as MessageEvent).data) as Patch;
    if (!snap || patch.base !== snap.seq) {
      // Out of step (cannot happen on one ordered stream): start again from a whole snapshot.
      source.close();
      connect();
      return;
    }
    render(applyPatch(snap, patch));
  });
  source.addEventListener('end', () => {
    // The monitor stopped on purpose: no reconnecting, the page keeps the final state.
    source.close();
    monitorEnded = true;
    $('live').textContent = 'monitor stopped';
    $('live').className = 'ended';
    render();
  });
  source.addEventListener('failure', (e) => {
    const data = JSON.parse((e as MessageEvent).data) as { error: string };
    $('run').textContent = `monitor error: ${data.error}`;
  });
  source.onopen = () => {
    $('live').textContent = 'live';
    $('live').className = 'on';
  };
  source.onerror = () => {
    if (monitorEnded) return;
    // A run that finished while the monitor was not reachable still reads as finished.
    $('live').textContent =
      snap && snap.dispatcher.state !== 'running' ? 'offline (last state shown)' : 'reconnecting…';
    $('live').className = 'off';
  };
}

/**
 * Applies a patch to the snapshot in place. Returns the tasks whose card must be redrawn, or
 * undefined when the lanes must be laid out again (tasks came or went, or moved lane/column).
 */
function applyPatch(s: Snapshot, patch: Patch): TaskView[] | undefined {
  const { usage, ...set } = patch.set;
  Object.assign(s, set);
  s.seq = patch.seq;
  s.generatedAt = patch.generatedAt;
  if (usage) s.usage = { ...usage, byTask: s.usage.byTask };
  for (const [id, totals] of Object.entries(patch.usageByTask)) {
    if (totals) s.usage.byTask[id] = totals;
    else delete s.usage.byTask[id];
  }
  let relayout = patch.removed.length > 0 || set.groups !== undefined;
  const index = new Map(s.tasks.map((t, i) => [t.id, i]));
  for (const t of patch.tasks) {
    const at = index.get(t.id);
    if (at === undefined) {
      relayout = true;
      s.tasks.push(t);
      continue;
    }
    const old = s.tasks[at]!;
    if (
      old.depth !== t.depth ||
      old.group !== t.group ||
      old.dependsOn.join() !== t.dependsOn.join()
    )
      relayout = true;
    s.tasks[at] = t;
  }
  if (patch.removed.length) {
    const gone = new Set(patch.removed);
    s.tasks = s.tasks.filter((t) => !gone.has(t.id));
  }
  if (relayout) s.tasks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return relayout ? undefined : patch.tasks;
}

/** Draws the page; with `changed`, only those task cards (the lanes keep their layout). */
function render(changed?: TaskView[]): void {
  if (!snap) return;
  renders += 1;
  document.body.dataset.renders = String(renders);
  renderHeader(snap);
  const runState = runStateHtml(snap, monitorEnded) + (monitorEnded ? '' : stopRunHtml());
  // Redrawn only when it changed: an armed (confirm) stop button keeps its state.
  if ($('run-state').dataset.html !== runState) {
    $('run-state').dataset.html = runState;
    $('run-state').innerHTML = runState;
    const slot = $('run-state').querySelector('.run-actions');
    const stop = $('run-state').querySelector(':scope > [data-action="stop-run"]');
    if (slot && stop) slot.append(stop);
    else stop?.remove();
  }
  renderTotals(snap);
  if (changed) renderCards(changed);
  else renderLanes(snap);
  applyFilter(snap);
  renderClaims(snap);
  renderEscalations(snap);
  renderDetail();
  requestAnimationFrame(() => {
    drawEdges();
    // The first complete render (tasks laid out, edges drawn), for benchmarks and tests.
    if (renders === 1) performance.mark('switchyard-first-render');
  });
}

function renderHeader(s: Snapshot): void {
  const d = s.dispatcher;
  const run = d.lastRun
    ? `run ${esc(d.lastRun.runId)} · started ${time(d.lastRun.startedAt)}${d.lastRun.exitCode !== undefined ? ` · exit ${d.lastRun.exitCode}` : ''}`
    : 'no run yet';
  $('run').innerHTML =
    `<b class="disp disp-${esc(d.state)}">dispatcher ${esc(d.state)}</b> ${run} · ` +
    `<span class="c-running">${s.counts.running} running</span> · <span class="c-waiting">${s.counts.waiting} waiting</span> · ` +
    `<span class="c-blocked">${s.counts.blocked} blocked</span> · <span class="c-done">${s.counts.done} done</span> · ` +
    (s.worktreeDisk?.worktrees ? `<span class="disk">${esc(s.worktreeDisk.text)}</span> · ` : '') +
    `<span class="ws">${esc(s.workspace)}</span>`;
}

function totalsCells(t: Totals): string {
  return `<td>${num(t.attempts)}</td><td>${num(t.inputTokens)}</td><td>${num(t.outputTokens)}</td><td>${num(t.cacheReadTokens + t.cacheWriteTokens)}</td><td>${num(t.totalTokens)}</td><td>${cost(t)}${t.unpriced ? ` <i title="attempts with tokens but no price">+${t.unpriced} unpriced</i>` : ''}</td>`;
}

function renderTotals(s: Snapshot): void {
  const u = s.usage;
  const rows = Object.entries(u.byTarget)
    .sort()
    .map(([target, t]) => `<tr><th>${esc(target)}</th>${totalsCells(t)}</tr>`)
    .join('');
  $('totals').innerHTML =
    `<div id="run-totals"><b>tokens</b> <span id="run-tokens">${num(u.run.totalTokens)}</span> · <b>cost</b> <span id="run-cost">${cost(u.run)}</span></div>` +
    `<table class="usage"><thead><tr><th>target</th><th>attempts</th><th>input</th><th>output</th><th>cache</th><th>tokens</th><th>cost</th></tr></thead>` +
    `<tbody>${rows}<tr class="sum"><th>run</th>${totalsCells(u.run)}</tr></tbody></table>`;
}

function failovers(t: TaskView): FailoverView[] {
  return t.history.filter((e): e is FailoverView => e.type === 'target.failover');
}

function renderLanes(s: Snapshot): void {
  const byGroup = new Map<string, TaskView[]>();
  let maxDepth = 0;
  for (const t of s.tasks) {
    const list = byGroup.get(t.group) ?? [];
    byGroup.set(t.group, list);
    list.push(t);
    maxDepth = Math.max(maxDepth, t.depth);
  }
  // Lanes in dependency order (the lane whose first task comes earliest first); columns are
  // global depths, so an edge always runs left to right, also across lanes.
  const minDepth = (g: string) => Math.min(...(byGroup.get(g) ?? []).map((t) => t.depth));
  const groups = [...s.groups].sort((a, b) => minDepth(a) - minDepth(b) || (a < b ? -1 : 1));
  const html: string[] = [
    '<div class="lane-tools"><button type="button" data-fold-all="1">fold all lanes</button> <button type="button" data-fold-all="0">unfold all</button></div>',
    '<svg id="edges" aria-hidden="true"></svg>',
  ];
  const template = `grid-template-columns: repeat(${maxDepth + 1}, var(--card))`;
  for (const group of groups) {
    const tasks = byGroup.get(group) ?? [];
    const folded = isFolded(group, tasks, s.tasks.length);
    const plan = s.plans?.[group];
    const planHead = plan
      ? ` <span class="plan-title">${esc(plan.title)}</span>${plan.goal ? ` <span class="plan-goal">— ${esc(plan.goal)}</span>` : ''}${plan.lanes.length ? ` <small class="plan-lanes">lanes: ${plan.lanes.map(laneName).join(' → ')}</small>` : ''}`
      : '';
    const head = `<h2><button type="button" class="lane-toggle" data-lane="${esc(group)}" aria-expanded="${!folded}">${folded ? '▸' : '▾'} ${esc(group)}</button>${planHead} <small class="lane-counts">${laneCounts(tasks)}</small></h2>`;
    if (folded) {
      html.push(`<section class="lane folded" data-group="${esc(group)}">${head}</section>`);
      continue;
    }
    const columns = new Map<number, TaskView[]>();
    for (const t of byGroup.get(group) ?? []) {
      const col = columns.get(t.depth) ?? [];
      columns.set(t.depth, col);
      col.push(t);
    }
    html.push(
      `<section class="lane" data-group="${esc(group)}">${head}<div class="cols" data-cols="${maxDepth + 1}">`,
    );
    for (const [depth, tasks] of [...columns.entries()].sort((a, b) => a[0] - b[0])) {
      html.push(`<div class="col" data-depth="${depth}">${tasks.map(card).join('')}</div>`);
    }
    html.push('</div></section>');
  }
  $('lanes').innerHTML = html.join('');
  // CSP allows no inline style attributes: columns are placed through the CSSOM instead.
  for (const el of $('lanes').querySelectorAll<HTMLElement>('.cols'))
    el.style.gridTemplateColumns = template.slice(template.indexOf(':') + 1);
  for (const el of $('lanes').querySelectorAll<HTMLElement>('.col'))
    el.style.gridColumn = String(Number(el.dataset.depth) + 1);
}

/** A YAML plan lane in its group's heading: its label and id, or only its id. */
function laneName(lane: { id: string; label?: string }): string {
  return lane.label ? `${esc(lane.label)} (${esc(lane.id)})` : esc(lane.id);
}

/** Replaces the cards of `tasks` in place (their lane and column are unchanged). */
function renderCards(tasks: TaskView[]): void {
  const groups = new Set<string>();
  for (const t of tasks) {
    groups.add(t.group);
    const el = $('lanes').querySelector(`.task[data-task="${CSS.escape(t.id)}"]`);
    if (el) el.outerHTML = card(t);
  }
  for (const group of groups) {
    const counts = $('lanes').querySelector(
      `.lane[data-group="${CSS.escape(group)}"] .lane-counts`,
    );
    if (counts) counts.innerHTML = laneCounts(snap!.tasks.filter((t) => t.group === group));
  }
}

function card(t: TaskView): string {
  const fo = failovers(t)
    .map(
      (e) =>
        `<div class="fo-edge">${esc(e.from)} → ${esc(e.to)} <small>${esc(e.class)}</small></div>`,
    )
    .join('');
  const elapsed = t.running
    ? `<span class="elapsed" data-since="${esc(t.running.since)}">${ago(t.running.since)}</span>`
    : '';
  // A new worktree's set-up is no attempt: "setting up", and the command in the why line.
  const settingUp = t.running?.role === 'setup';
  const run = !t.running
    ? ''
    : settingUp
      ? `<div class="meta">setting up · ${elapsed}</div>`
      : `<div class="meta">${esc(t.running.role)} · ${esc(t.running.target)} · ${elapsed} · attempt ${t.running.attemptNo}/${t.running.budget}</div>`;
  const yamlLane = snap?.plans?.[t.group]?.lanes.find((l) => l.tasks.includes(t.id));
  const laneTag = yamlLane
    ? `<span class="yaml-lane" title="YAML plan lane ${esc(yamlLane.id)}">${esc(yamlLane.label ?? yamlLane.id)}</span>`
    : '';
  const loop =
    t.planLoop > 1
      ? `<span class="loop">loop ${t.planLoop}${t.maxPlanLoops ? ` of ${t.maxPlanLoops}` : ''}</span>`
      : '';
  return (
    `<button type="button" class="task st-${t.state}${t.id === selected ? ' sel' : ''}" data-task="${esc(t.id)}" data-state="${t.state}" title="${esc(t.why)}">` +
    `<div class="name">${esc(t.id.slice(t.group.length + 1))} <span class="badge">${t.state}</span>${loop}${laneTag}</div>${run}${t.machine ? `<div class="meta machine">on ${esc(t.machine)}</div>` : ''}` +
    `<div class="why">${esc(t.state === 'running' && !settingUp ? '' : t.why)}</div>${fo}</button>`
  );
}

function drawEdges(): void {
  const svg = document.getElementById('edges') as SVGSVGElement | null;
  if (!svg || !snap) return;
  const lanes = $('lanes');
  const box = lanes.getBoundingClientRect();
  svg.setAttribute('width', String(lanes.scrollWidth));
  svg.setAttribute('height', String(lanes.scrollHeight));
  const edges = snap.tasks.reduce((n, t) => n + t.dependsOn.length, 0);
  if (edges > 1500) return; // beyond that the lines are noise; the detail lists dependencies
  const pos = new Map<string, DOMRect>();
  for (const el of lanes.querySelectorAll<HTMLElement>('.task'))
    if (!el.hidden) pos.set(el.dataset.task!, el.getBoundingClientRect());
  const paths: string[] = [];
  for (const t of snap.tasks) {
    const to = pos.get(t.id);
    if (!to) continue;
    for (const dep of t.dependsOn) {
      const from = pos.get(dep);
      if (!from) continue;
      const x1 = from.right - box.left + lanes.scrollLeft;
      const y1 = from.top + from.height / 2 - box.top + lanes.scrollTop;
      const x2 = to.left - box.left + lanes.scrollLeft;
      const y2 = to.top + to.height / 2 - box.top + lanes.scrollTop;
      const hot = t.id === selected || dep === selected ? ' hot' : '';
      paths.push(
        `<path class="edge${hot}" data-from="${esc(dep)}" data-to="${esc(t.id)}" d="M${x1},${y1} C${x1 + 30},${y1} ${x2 - 30},${y2} ${x2},${y2}"/>`,
      );
    }
  }
  svg.innerHTML = paths.join('');
}

function renderClaims(s: Snapshot): void {
  const waiters = s.tasks.filter(
    (t) => t.waiting?.kind === 'claim' || t.waiting?.kind === 'dependencies',
  );
  $('claims').innerHTML =
    `<h2>Write-set claims</h2>${s.claims.length === 0 ? '<p class="hint">none held</p>' : `<table><tr><th>path</th><th>held by</th><th>since</th></tr>${s.claims.map((c) => `<tr><td>${esc(c.path)}</td><td>${esc(c.task)}</td><td>${time(c.since)}</td></tr>`).join('')}</table>`}` +
    `<h2>Who waits on whom</h2>${waiters.length === 0 ? '<p class="hint">nobody waits</p>' : `<ul>${waiters.map((t) => `<li><b>${esc(t.id)}</b> — ${esc(t.why)}</li>`).join('')}</ul>`}`;
}

/** Open escalations stay listed until a human runs `switchyard resolve`. */
let escalationsKey = '';
function renderEscalations(s: Snapshot): void {
  const list = s.escalations ?? [];
  // Redrawn only when the list changed: an answer being typed stays.
  const key = JSON.stringify(list);
  if (key === escalationsKey) return;
  escalationsKey = key;
  $('escalations').innerHTML =
    `<h2>Open escalations</h2>${list.length === 0 ? '<p class="hint">none: no task waits for a human</p>' : `<table class="escalations"><tr><th>task</th><th>code</th><th>question for you</th><th>bundle</th><th>since</th></tr>${list.map((e) => `<tr class="escalation"><td><b>${esc(e.task)}</b>${e.blockedDownstream.length ? `<br><span class="hint">blocks ${e.blockedDownstream.map(esc).join(', ')}</span>` : ''}</td><td>${esc(e.code)}${e.class ? ` (${esc(e.class)})` : ''}</td><td>${esc(e.question)}<br>${resolveFormHtml(e)}<span class="hint">or in a terminal:</span> ${commandHtml(['switchyard', 'resolve', e.task, '--retry'])}</td><td><code>${esc(e.bundle)}</code></td><td>${time(e.since)}</td></tr>`).join('')}</table>`}`;
}

function loopHistory(t: TaskView): string {
  const steps = ['PLAN'];
  for (const e of t.history) {
    if (e.type === 'review.verdict') steps.push(`CODE_REVIEW-${e.planLoop} (${e.verdict})`);
    if (e.type === 'task.plan-loop') steps.push(`PLAN-${e.planLoop}`);
  }
  return steps.map(esc).join(' → ');
}

function renderDetail(): void {
  const el = $('detail');
  const t = snap?.tasks.find((x) => x.id === selected);
  if (!t) {
    el.innerHTML = '<p class="hint">Select a task.</p>';
    stopTail();
    return;
  }
  const parts: string[] = [
    `<h2>${esc(t.id)} <span class="badge st-${t.state}">${t.state}</span></h2>`,
    `<p class="why">${esc(t.why)}</p>`,
    taskActionsHtml(t),
  ];
  if (t.waiting?.until)
    parts.push(
      `<p>until ${esc(new Date(t.waiting.until).toLocaleString())} (${esc(t.waiting.kind)})</p>`,
    );
  if (t.running) {
    const r = t.running;
    parts.push(
      `<dl class="kv"><dt>stage</dt><dd>${esc(r.role)} (plan loop ${r.planLoop}${t.maxPlanLoops ? ` of ${t.maxPlanLoops}` : ''})</dd><dt>target</dt><dd>${esc(r.target)}</dd><dt>elapsed</dt><dd class="elapsed" data-since="${esc(r.since)}">${ago(r.since)}</dd><dt>attempt</dt><dd>${r.attemptNo} of ${r.budget}</dd><dt>supervision</dt><dd>${esc(r.supervision)}</dd></dl>`,
    );
  }
  if (t.blocked) {
    parts.push(
      `<h3>Blocked at ${esc(t.blocked.stage)}${t.blocked.class ? ` (${esc(t.blocked.class)})` : ''}</h3>${t.blocked.evidence.length ? `<pre class="evidence">${t.blocked.evidence.map(esc).join('\n')}</pre>` : ''}`,
    );
  }
  const deps = t.dependsOn.length
    ? t.dependsOn
        .map((d) => `<a href="#${encodeURIComponent(d)}" data-goto="${esc(d)}">${esc(d)}</a>`)
        .join(', ')
    : 'none';
  parts.push(
    `<dl class="kv"><dt>depends on</dt><dd>${deps}</dd><dt>write set</dt><dd>${t.writeSet.map(esc).join(', ') || '—'}</dd></dl>`,
  );
  parts.push(`<h3>Plan loop</h3><p class="loops">${loopHistory(t)}</p>`);
  const fos = failovers(t);
  if (fos.length) {
    parts.push(
      `<h3>Failovers</h3><ul class="failovers">${fos.map((e) => (e.type === 'target.failover' ? `<li class="fo-edge"><b>${esc(e.from)} → ${esc(e.to)}</b> · ${esc(e.class)} · ${esc(e.stage)}<pre class="evidence deciding">${esc(e.evidence[0] ?? '')}</pre></li>` : '')).join('')}</ul>`,
    );
  }
  parts.push(gatesHtml(t.history));
  const acts = t.history.filter((e) => e.type === 'human.action');
  if (acts.length)
    parts.push(
      `<h3>Human actions</h3><ul class="human-actions">${acts.map((e) => (e.type === 'human.action' ? `<li>${time(e.at)} · <b>${esc(e.action)}${e.answer ? `: ${esc(e.answer)}` : ''}</b> by ${esc(e.by ?? 'someone')} via ${esc(e.via)} — ${esc(e.detail)}${e.note ? `<br><q>${esc(e.note)}</q>` : ''}</li>` : '')).join('')}</ul>`,
    );
  const verdicts = t.history.filter((e) => e.type === 'review.verdict');
  if (verdicts.length) {
    parts.push(
      `<h3>Reviews</h3><ul class="verdicts">${verdicts.map((e) => (e.type === 'review.verdict' ? `<li class="verdict v-${e.verdict}">CODE_REVIEW-${e.planLoop}: <b>${e.verdict}</b> · <span class="sev-critical">${e.findings.critical} critical</span> · <span class="sev-moderate">${e.findings.moderate} moderate</span> · <span class="sev-minor">${e.findings.minor} minor</span></li>` : '')).join('')}</ul>`,
    );
  }
  parts.push(stageTimesHtml(t), attemptsHtml(t, snap!));
  parts.push(
    `<h3>Diff</h3><div id="diff" data-task="${esc(t.id)}">${diffCache.get(t.id)?.html ?? '<p class="hint">loading the diff…</p>'}</div>`,
  );
  parts.push(
    `<h3>Live output</h3><pre id="tail" class="tail">${t.running ? '' : '<i>no running attempt; click an attempt to read its output while its evidence is kept</i>'}</pre>`,
  );
  parts.push(
    `<p><button type="button" data-raw="plan">raw plan</button> <button type="button" data-raw="state">raw state</button></p>`,
  );
  const keep = document.getElementById('tail')?.textContent ?? '';
  el.innerHTML = parts.join('');
  loadDiff(t);
  const want = t.running?.attempt ?? tail?.attempt;
  if (want && tail?.attempt === want) $('tail').textContent = keep;
  // A set-up has no attempt folder to follow (its output is in its evidence once it ends).
  if (t.running && t.running.role !== 'setup' && tail?.attempt !== t.running.attempt)
    startTail(t.running.attempt);
}

/** A new selection: classes and the detail only (the lanes and edges stay as laid out). */
function select(): void {
  for (const el of document.querySelectorAll('.task.sel')) el.classList.remove('sel');
  for (const el of document.querySelectorAll('.edge.hot')) el.classList.remove('hot');
  if (selected) {
    const id = CSS.escape(selected);
    document.querySelector(`.task[data-task="${id}"]`)?.classList.add('sel');
    for (const el of document.querySelectorAll(`.edge[data-from="${id}"], .edge[data-to="${id}"]`))
      el.classList.add('hot');
  }
  renderDetail();
}

/** Diffs read, by task and the history length they were read at (a new event may change it). */
const diffCache = new Map<string, { key: string; html: string }>();
const diffKey = (t: TaskView) => `${t.id}#${t.history.length}#${t.state}`;

/** Shows the selected task's diff: from the cache when nothing happened since, else fetched. */
function loadDiff(t: TaskView): void {
  const key = diffKey(t);
  const cached = diffCache.get(t.id);
  const el = document.getElementById('diff');
  if (cached && el) el.innerHTML = cached.html;
  if (cached?.key === key) return;
  void fetch(q('/diff', { task: t.id }))
    .then(async (res) => {
      if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
      return diffHtml((await res.json()) as DiffView);
    })
    .catch((error: unknown) => `<p class="hint">no diff: ${esc(String(error))}</p>`)
    .then((html) => {
      diffCache.set(t.id, { key, html });
      const now = document.getElementById('diff');
      if (now && now.dataset.task === t.id) now.innerHTML = html;
    });
}

function startTail(attempt: string): void {
  stopTail();
  const source = new EventSource(q('/tail', { attempt }));
  tail = { attempt, source };
  source.addEventListener('text', (e) => {
    const pre = document.getElementById('tail');
    if (!pre) return;
    const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    pre.textContent = (pre.textContent + JSON.parse((e as MessageEvent).data)).slice(-200_000);
    if (atEnd) pre.scrollTop = pre.scrollHeight;
  });
}

function stopTail(): void {
  tail?.source.close();
  tail = undefined;
}

async function showRaw(path: string, params: Record<string, string> = {}): Promise<void> {
  const pre = $('raw');
  pre.hidden = false;
  pre.textContent = 'loading…';
  const res = await fetch(q(path, params));
  pre.textContent = await res.text();
  pre.scrollIntoView();
}

document.addEventListener('click', (ev) => {
  const target = ev.target as HTMLElement;
  const lane = target.closest<HTMLElement>('[data-lane]');
  const foldAll = target.closest<HTMLElement>('[data-fold-all]');
  if ((lane || foldAll) && snap) {
    const fold = foldAll
      ? foldAll.dataset.foldAll === '1'
      : lane!.getAttribute('aria-expanded') === 'true';
    for (const group of foldAll ? snap.groups : [lane!.dataset.lane!]) setFolded(group, fold);
    renderLanes(snap);
    applyFilter(snap);
    requestAnimationFrame(drawEdges);
    return;
  }
  const action = target.closest<HTMLElement>('[data-action]');
  if (action) {
    void onActionClick(action, token);
    return;
  }
  const copy = target.closest<HTMLElement>('[data-copy]');
  if (copy) {
    void navigator.clipboard?.writeText(copy.dataset.copy!).then(() => {
      copy.textContent = 'copied';
    });
    return;
  }
  const task = target.closest<HTMLElement>('.task');
  const goto = target.closest<HTMLElement>('[data-goto]');
  const tailLink = target.closest<HTMLElement>('[data-tail]');
  const raw = target.closest<HTMLElement>('[data-raw]');
  if (task || goto) {
    ev.preventDefault();
    selected = (task ?? goto)!.dataset.task ?? goto!.dataset.goto;
    history.replaceState(null, '', `${location.search}#${encodeURIComponent(selected ?? '')}`);
    stopTail();
    select();
  } else if (tailLink) {
    ev.preventDefault();
    startTail(tailLink.dataset.tail!);
    $('tail').textContent = '';
  } else if (raw && selected) {
    void showRaw(`/raw/${raw.dataset.raw}`, { task: selected });
  } else if (target.id === 'raw-events') {
    void showRaw('/raw/events');
  } else if (target.id === 'raw-snapshot') {
    $('raw').hidden = false;
    $('raw').textContent = JSON.stringify(snap, null, 2);
  }
});

// Elapsed times tick without a server round trip.
setInterval(() => {
  for (const el of document.querySelectorAll<HTMLElement>('.elapsed'))
    el.textContent = ago(el.dataset.since!);
}, 1000);

$('tools').innerHTML = filterBarHtml();
const onFilter = () => {
  readFilter();
  if (!snap) return;
  applyFilter(snap);
  requestAnimationFrame(drawEdges);
};
$('tools').addEventListener('input', onFilter);
$('tools').addEventListener('change', onFilter);

// First paint from the snapshot served with the page; the stream then brings the changes.
const initial = document.getElementById('initial-snapshot')?.textContent;
if (initial) {
  snap = JSON.parse(initial) as Snapshot;
  render();
}
connect();
