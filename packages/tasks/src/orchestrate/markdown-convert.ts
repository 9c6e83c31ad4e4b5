import type { Problem } from '@switchyard/core';

/** A legacy markdown task file converted to a YAML plan. */
export interface ConvertedMarkdownPlan {
  /** The YAML plan text (orchestrate-plan version 1). */
  yaml: string;
  /** Problems of the markdown itself (with its line numbers). */
  problems: Problem[];
  /** For each task, in order: its heading line in the markdown and its first line in `yaml`. */
  tasks: { id: string; markdownLine: number; yamlLine: number }[];
}

interface MarkdownTask {
  id: string;
  title: string;
  line: number;
  agent?: string;
  model?: string;
  parallel?: string;
  dependencies: string[];
  files: string[];
  command?: string;
  assertion?: string;
  implementation: string[];
}

const HEADING = /^#{2,4}\s+Task\s+([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:\s*(.*?)\s*#*\s*$/i;
const FIELD = /^\s*[-*+]\s+(?:\*\*)?([A-Za-z][A-Za-z ]*?)(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*?)\s*$/;

/** `none`, `Task 1, Task 2`, `1 and 3` → ids. */
function dependencyIds(text: string): string[] {
  if (/^(none|-|n\/a|)$/i.test(text.trim())) return [];
  return text
    .split(/,|;|\band\b/)
    .map((p) =>
      p
        .trim()
        .replace(/^task\s+/i, '')
        .replace(/[`*]/g, '')
        .trim(),
    )
    .filter((p) => p !== '');
}

const unquote = (text: string) => text.replace(/^`+|`+$/g, '').trim();

/**
 * Converts a legacy markdown task file (`### Task N: Title` followed by `- Agent:`,
 * `- Model:`, `- Parallel:`, `- Dependencies:`, `- Definition of Done:` with `Command:` and
 * `Assertion:`; ours: `- Files: a, b`) into a YAML plan: `Task N` becomes id "N", a
 * `Parallel: K` group becomes lane "K", "Dependencies: Task 1" becomes `depends_on: ["1"]`,
 * other bullets become implementation items. Agent and model names are kept as a comment:
 * they name no catalog target. Pure.
 */
export function convertMarkdownPlan(
  source: string,
  file: string,
  title?: string,
): ConvertedMarkdownPlan {
  const read = readMarkdownTasks(source, title);
  const problems = markdownProblems(read.tasks, file);
  return { ...renderYaml(read.tasks, read.title ?? file, file), problems };
}

/** The scan of the markdown: the tasks so far, the one being read, and the plan's title. */
interface MarkdownReading {
  tasks: MarkdownTask[];
  title: string | undefined;
  current: MarkdownTask | undefined;
  /** Under a task's `Definition of Done` bullet: its indented Command and Assertion follow. */
  inDone: boolean;
}

function readMarkdownTasks(source: string, title: string | undefined): MarkdownReading {
  const reading: MarkdownReading = { tasks: [], title, current: undefined, inDone: false };
  const lines = source.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [index, text] of lines.entries()) readLine(reading, text, index + 1);
  return reading;
}

/** A task heading starts a task, another heading ends it; a `# Title` before any task names the plan. */
function readLine(reading: MarkdownReading, text: string, line: number): void {
  const heading = HEADING.exec(text);
  if (heading) {
    reading.current = {
      id: heading[1] as string,
      title: (heading[2] as string) || `Task ${heading[1]}`,
      line,
      dependencies: [],
      files: [],
      implementation: [],
    };
    reading.tasks.push(reading.current);
    reading.inDone = false;
    return;
  }
  if (!reading.current) {
    const h1 = /^#\s+(.+?)\s*$/.exec(text);
    if (h1 && reading.title === undefined) reading.title = h1[1];
    return;
  }
  if (/^#{1,4}\s/.test(text)) {
    reading.current = undefined;
    return;
  }
  readTaskLine(reading, reading.current, text);
}

/** A line inside a task: a `- Key: value` field, or a plain bullet (a thing to do). */
function readTaskLine(reading: MarkdownReading, task: MarkdownTask, text: string): void {
  const field = FIELD.exec(text);
  if (!field) {
    // A plain bullet of the task (not under the Definition of Done) is a thing to do.
    const bullet = /^([-*+])\s+(.+?)\s*$/.exec(text);
    if (bullet) {
      reading.inDone = false;
      task.implementation.push(bullet[2] as string);
    }
    return;
  }
  const key = (field[1] as string).trim().toLowerCase();
  const value = (field[2] as string).replace(/\*\*$/, '').trim();
  const indented = /^\s{2,}/.test(text);
  if (reading.inDone && indented && (key === 'command' || key === 'assertion')) {
    if (key === 'command') task.command = unquote(value);
    else task.assertion = value;
    return;
  }
  reading.inDone = key === 'definition of done';
  if (!setField(task, key, value)) task.implementation.push(`${field[1]}: ${value}`);
}

/** Sets the task's field for a known key; false for any other key (a thing to do). */
function setField(task: MarkdownTask, key: string, value: string): boolean {
  switch (key) {
    case 'agent':
      task.agent = value;
      return true;
    case 'model':
      task.model = value;
      return true;
    case 'parallel':
      task.parallel = value;
      return true;
    case 'dependencies':
    case 'depends on':
      task.dependencies = dependencyIds(value);
      return true;
    case 'files':
      task.files = value
        .split(',')
        .map((f) => unquote(f.trim()))
        .filter(Boolean);
      return true;
    case 'definition of done':
      // Its Command and Assertion follow as indented bullets (see `inDone`).
      return true;
    default:
      return false;
  }
}

/** Problems of the markdown itself: no task at all, a Command without its Assertion. */
function markdownProblems(tasks: MarkdownTask[], file: string): Problem[] {
  const problems: Problem[] = [];
  if (tasks.length === 0)
    problems.push({
      code: 'SY_YAML_PLAN_INVALID',
      message: 'no `### Task N: Title` heading found',
      file,
      line: 1,
      hint: 'a legacy task file has one `### Task N: Title` section per task',
      severity: 'error',
    });
  for (const t of tasks)
    if (t.command !== undefined && t.assertion === undefined)
      problems.push({
        code: 'SY_YAML_PLAN_INVALID',
        message: `Task ${t.id}: the Definition of Done has a Command but no Assertion`,
        file,
        line: t.line,
        hint: 'add `  - Assertion: exit code 0` under the Definition of Done',
        severity: 'error',
      });
  return problems;
}

const q = (text: string) => JSON.stringify(text);

function renderYaml(
  tasks: MarkdownTask[],
  title: string,
  file: string,
): Omit<ConvertedMarkdownPlan, 'problems'> {
  const lanes = [
    ...new Set(tasks.flatMap((t) => (t.parallel !== undefined ? [t.parallel] : []))),
  ].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  const out = [
    `# converted by switchyard from ${file}`,
    'version: 1',
    'kind: orchestrate-plan',
    'metadata:',
    `  title: ${q(title)}`,
  ];
  if (lanes.length > 0) {
    out.push('lanes:');
    for (const lane of lanes) out.push(`  - id: ${q(lane)}`, `    label: ${q(`Parallel ${lane}`)}`);
  }
  out.push('tasks:');
  const positions: ConvertedMarkdownPlan['tasks'] = [];
  for (const t of tasks) {
    if (t.agent !== undefined || t.model !== undefined)
      out.push(
        `  # ${[t.agent && `Agent: ${t.agent}`, t.model && `Model: ${t.model}`].filter(Boolean).join(', ')} (no catalog mapping: set backend to a target id or agent name)`,
      );
    positions.push({ id: t.id, markdownLine: t.line, yamlLine: out.length + 1 });
    out.push(`  - id: ${q(t.id)}`, `    title: ${q(t.title)}`);
    if (t.parallel !== undefined) out.push(`    lane: ${q(t.parallel)}`);
    out.push('    runner: code-runner');
    out.push(`    depends_on: [${t.dependencies.map(q).join(', ')}]`);
    if (t.implementation.length > 0) {
      out.push('    implementation:');
      for (const item of t.implementation) out.push(`      - ${q(item)}`);
    }
    if (t.files.length > 0) out.push(`    files: [${t.files.map(q).join(', ')}]`);
    // A command without an assertion is a markdown problem already reported.
    if (t.command !== undefined && t.assertion !== undefined) {
      out.push('    definition_of_done:');
      out.push(`      command: ${q(t.command)}`);
      out.push(`      assertion: ${q(t.assertion)}`);
    }
  }
  return { yaml: `${out.join('\n')}\n`, tasks: positions };
}

/**
 * Maps a problem of the converted YAML back to the markdown: the heading line of the task
 * the YAML line belongs to (the file's first line for plan-level problems).
 */
export function markdownProblem(
  problem: Problem,
  converted: ConvertedMarkdownPlan,
  file: string,
): Problem {
  const line = problem.line ?? 0;
  const task = [...converted.tasks].reverse().find((t) => t.yamlLine <= line);
  const { column: _column, ...rest } = problem;
  return {
    ...rest,
    file,
    line: task?.markdownLine ?? 1,
    message: `${task ? `Task ${task.id}: ` : ''}${problem.message} (converted from markdown)`,
  };
}
