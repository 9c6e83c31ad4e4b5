// Acting from the page: retry or skip a blocked task, resolve an open escalation with an
// answer (and words kept with it), stop a task, stop the run. Each is a POST /action with the
// page's token in a header; the server checks Host, Origin and token and answers what it did
// or why not. A stop asks for a second click (no modal dialog).
import { esc } from './format.js';
import type { EscalationView, TaskView } from './types.js';

/** The stop armed by a first click (`action task`): redraws keep it armed. */
let armed: string | undefined;
const keyOf = (action: string, task = '') => `${action} ${task}`;

/** A stop button: its confirmation text once armed. */
function stopButton(action: string, label: string, confirm: string, task?: string): string {
  const on = armed === keyOf(action, task);
  return `<button type="button" class="danger" data-action="${action}"${task ? ` data-task="${esc(task)}"` : ''} data-confirm="${esc(confirm)}"${on ? ' data-armed="1"' : ''}>${esc(on ? confirm : label)}</button>`;
}

/** Buttons of the selected task: what applies to it in its state. */
export function taskActionsHtml(t: TaskView): string {
  if (t.state === 'blocked')
    return `<p class="actions"><button type="button" data-action="retry" data-task="${esc(t.id)}">retry</button> <button type="button" data-action="skip" data-task="${esc(t.id)}">skip</button></p>`;
  if (t.state === 'running' || t.state === 'waiting')
    return `<p class="actions">${stopButton('stop-task', 'stop task', `really stop ${t.id}?`, t.id)}</p>`;
  return '';
}

/** The answer form of an open escalation: the human's words, then retry or skip. */
export function resolveFormHtml(e: EscalationView): string {
  return (
    `<div class="resolve" data-resolve="${esc(e.task)}"><textarea rows="2" maxlength="2000" data-note-for="${esc(e.task)}" placeholder="your answer (kept with the resolution and in the work log)"></textarea>` +
    `<button type="button" data-action="resolve" data-answer="retry" data-task="${esc(e.task)}">resolve: retry</button> <button type="button" data-action="resolve" data-answer="skip" data-task="${esc(e.task)}">resolve: skip</button></div>`
  );
}

/** The stop-run button of a running run. */
export const stopRunHtml = (): string => stopButton('stop-run', 'stop run', 'really stop the run?');

/** Sends the action of a clicked button (after its confirmation click, for a stop). */
export async function onActionClick(button: HTMLElement, token: string): Promise<void> {
  const task = button.dataset.task;
  if (button.dataset.confirm && button.dataset.armed !== '1') {
    armed = keyOf(button.dataset.action!, task);
    button.dataset.armed = '1';
    button.textContent = button.dataset.confirm;
    return;
  }
  armed = undefined;
  const note = task
    ? document
        .querySelector<HTMLTextAreaElement>(`[data-note-for="${CSS.escape(task)}"]`)
        ?.value.trim()
    : undefined;
  const body = {
    action: button.dataset.action,
    ...(task ? { task } : {}),
    ...(button.dataset.answer ? { answer: button.dataset.answer } : {}),
    ...(button.dataset.action === 'resolve' && note ? { note } : {}),
  };
  (button as HTMLButtonElement).disabled = true;
  const res = await fetch('/action', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-switchyard-token': token },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let reply: { ok?: boolean; detail?: string; message?: string; hint?: string } = {};
  try {
    reply = JSON.parse(text) as typeof reply;
  } catch {
    reply = { message: text.trim() };
  }
  showResult(
    res.ok,
    res.status,
    `${body.action}${task ? ` ${task}` : ''}: ${res.ok ? reply.detail : `${reply.message ?? ''}${reply.hint ? ` — ${reply.hint}` : ''}`}`,
  );
}

function showResult(ok: boolean, status: number, text: string): void {
  const el = document.getElementById('action-result');
  if (!el) return;
  el.hidden = false;
  el.className = ok ? 'ok' : 'refused';
  el.dataset.status = String(status);
  el.textContent = ok ? text : `refused (${status}): ${text}`;
}
