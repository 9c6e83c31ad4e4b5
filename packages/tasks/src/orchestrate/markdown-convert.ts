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
  const problems: Problem[] = [];
  const lines = source.replace(/^\uFEFF/, '').split(/\r?\n/);
  const tasks: MarkdownTask[] = [];
  let planTitle = title;
  let current: MarkdownTask | undefined;
  let inDone = false;
  lines.forEach((text, index) => {
    const line = index + 1;
    const heading = HEADING.exec(text);
    if (heading) {
      current = {
        id: heading[1] as string,
        title: (heading[2] as string) || `Task ${heading[1]}`,
        line,
        dependencies: [],
        files: [],
        implementation: [],
      };
      tasks.push(current);
      inDone = false;
      return;
    }
    if (!current) {
      const h1 = /^#\s+(.+?)\s*$/.exec(text);
      if (h1 && planTitle === undefined) planTitle = h1[1];
      return;
    }
    if (/^#{1,4}\s/.test(text)) {
      current = undefined;
      return;
    }
    const field = FIELD.exec(text);
    if (!field) {
      // A plain bullet of the task (not under the Definition of Done) is a thing to do.
      const bullet = /^([-*+])\s+(.+?)\s*$/.exec(text);
      if (bullet) {
        inDone = false;
        current.implementation.push(bullet[2] as string);
      }
      return;
    }
    const key = (field[1] as string).trim().toLowerCase();
    const value = (field[2] as string).replace(/\*\*$/, '').trim();
    const indented = /^\s{2,}/.test(text);
    if (inDone && indented && (key === 'command' || key === 'assertion')) {
      if (key === 'command') current.command = unquote(value);
      else current.assertion = value;
      return;
    }
    inDone = false;
    switch (key) {
      case 'agent':
        current.agent = value;
        return;
      case 'model':
        current.model = value;
        return;
      case 'parallel':
        current.parallel = value;
        return;
      case 'dependencies':
      case 'depends on':
        current.dependencies = dependencyIds(value);
        return;
      case 'files':
        current.files = value
          .split(',')
          .map((f) => unquote(f.trim()))
          .filter(Boolean);
        return;
      case 'definition of done':
        inDone = true;
        return;
      default:
        current.implementation.push(`${field[1]}: ${value}`);
    }
  });
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
  return { ...renderYaml(tasks, planTitle ?? file, file), problems };
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
