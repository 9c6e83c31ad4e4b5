import type { Problem } from '../errors.js';

/** A task id: `<group>/<task>`, the folder names under `agent-task/`. */
export type TaskId = string;

/** A dependency as written in `depends_on`, resolved to a task id. */
export interface DependencyRef {
  /** As written: `task` (same group) or `group/task`. */
  raw: string;
  /** The resolved task id `<group>/<task>`. */
  id: TaskId;
  /** Line of the entry in the PLAN file. */
  line?: number;
}

/** The validated YAML front matter of a PLAN file. */
export interface PlanFrontMatter {
  /** Route id (`local-G01`…`cloud-G10`); required in `PLAN.md`. */
  route?: string;
  /** Dependencies, as written (resolve with the task's group). */
  dependsOn: { raw: string; line?: number }[];
  /** Optional pin to one catalog target id for every stage of the task. */
  target?: string;
  /** Optional cap on plan loops (positive integer). */
  maxPlanLoops?: number;
  /** `patch`: the task ends with its diff kept as a patch artifact, the source untouched. */
  apply?: 'source' | 'patch';
  /** `local`: the dispatcher runs `command` instead of an agent (human-written PLAN.md only). */
  runner?: 'local' | 'agent';
  /** The local command as argv (with `shell`, one script for `/bin/sh -c`). */
  command?: string[];
  /** Run `command` through `/bin/sh -c` (must be explicit). */
  shell?: boolean;
  /** How hard the work is, instead of a route (config `routing.complexity` maps it). */
  complexity?: 'routine' | 'standard' | 'complex';
  /** How risky the work is (config `routing.risk` maps it to a route and/or review mode). */
  risk?: 'low' | 'high';
  /** `tests: required`: the change must add or change a test and the DoD must run tests. */
  tests?: 'required';
  /** `review: red-team`: a second, adversarial review by another agent family must approve too. */
  review?: 'red-team';
  /** `write_set: any`: no listed files; under worktree isolation any path of the task's
   * worktree except `.git` (a run without isolation blocks the task). */
  writeSet?: 'any';
  /** Line of each key, for messages. */
  lines: Partial<
    Record<
      | 'route'
      | 'depends_on'
      | 'target'
      | 'max_plan_loops'
      | 'apply'
      | 'runner'
      | 'command'
      | 'shell'
      | 'complexity'
      | 'risk'
      | 'tests'
      | 'review'
      | 'write_set',
      number
    >
  >;
}

/** One entry of the Modified Files Summary. */
export interface WriteSetEntry {
  /** Canonical path: normalized, workspace-relative, POSIX separators, case as written. */
  path: string;
  /** The entry text as written in the list item. */
  raw: string;
  /** Text after the path (e.g. `— new file`), if any. */
  note?: string;
  /** Line of the list item. */
  line: number;
  /** Workspace-relative real path when a symlink inside the workspace makes it differ. */
  resolved?: string;
}

/** One `- [ ]` / `- [x]` item of the Implementation Checklist. */
export interface ChecklistItem {
  checked: boolean;
  /** Item text without the checkbox. */
  text: string;
  line: number;
}

/** What the Definition of Done asserts about the command's result. */
export type DoneAssertion =
  | { kind: 'exit-code'; code: number }
  | { kind: 'stdout-contains'; text: string }
  | { kind: 'stdout-matches'; pattern: string };

/** The optional `## Definition of Done`: a command (argv, run without a shell) and an assertion. */
export interface DefinitionOfDone {
  /** The command as argv; run in the workspace, without a shell. */
  argv: string[];
  /** The command as written. */
  command: string;
  assertion: DoneAssertion;
  line: number;
}

/** A level-2 section of the plan body. */
export interface PlanSection {
  /** Heading text as written. */
  heading: string;
  line: number;
}

/** A parsed PLAN file. `problems` lists every error and warning; the rest is best effort. */
export interface ParsedPlan {
  file: string;
  frontMatter: PlanFrontMatter;
  sections: PlanSection[];
  writeSet: WriteSetEntry[];
  checklist: ChecklistItem[];
  definitionOfDone?: DefinitionOfDone;
  problems: Problem[];
}
