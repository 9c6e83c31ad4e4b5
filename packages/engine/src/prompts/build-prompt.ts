import { type AttemptRoleName, promptTemplateOf } from '../lifecycle/index.js';
import { capLines, capList, capText, MAX_EMBEDDED_LINE, MAX_LISTED_PATHS } from './cap-text.js';
import { fillPromptTemplate, type PromptTemplates } from './templates.js';

/** Facts common to every prompt of an attempt. Paths are absolute. */
export interface PromptContext {
  role: AttemptRoleName;
  attemptId: string;
  task: string;
  planLoop: number;
  /** The task's cap on plan loops ("plan loop N of M"). */
  maxPlanLoops?: number;
  workspace: string;
  taskDir: string;
  /** The plan of this loop (`PLAN.md` or `PLAN-<N>.md`). */
  plan: string;
  /** Write-set paths (workspace-relative, as canonicalized by the task contract). */
  writeSet: readonly string[];
}

/** Review-only facts. */
export interface ReviewPromptFacts {
  reviewFile: string;
  nextPlan: string;
  /** Plan loops still allowed after this one (max_plan_loops - planLoop). */
  loopsLeft: number;
}

/** Where the previous attempt's evidence is, after a failover. */
export interface FailoverFacts {
  priorTarget: string;
  failureClass: string;
  priorLocator: string;
  priorNormalizedOutput: string;
  priorStream: string;
}

/** Feedback from a failed acceptance (DoD gate, self-check, review control). */
export interface CorrectionFacts {
  source: string;
  summary: string;
  evidence: readonly string[];
  file?: string | undefined;
}

/** What a prompt is built from. */
export interface BuildPromptInput {
  templates: PromptTemplates;
  context: PromptContext;
  review?: ReviewPromptFacts;
  /** Open checklist items for a self-check pass, as `line N: text`. */
  openItems?: readonly string[];
  /** The review findings a fixup applies, as `CODE_REVIEW-N.md:line: text`. */
  notes?: readonly string[];
  failover?: FailoverFacts | undefined;
  correction?: CorrectionFacts | undefined;
}

const bullets = (items: readonly string[], empty: string) =>
  items.length === 0 ? `  ${empty}` : items.map((item) => `  - ${item}`).join('\n');

/**
 * Builds an attempt's prompt: the dispatcher-child boundary first, then the role's
 * template, then the failover context and the correction when there are any.
 */
export function buildPrompt(input: BuildPromptInput): string {
  const { templates, context } = input;
  const template = promptTemplateOf(context.role);
  const values: Record<string, string | number> = {
    role: context.role,
    attemptId: context.attemptId,
    task: context.task,
    planLoop: context.planLoop,
    planLoopOf:
      context.maxPlanLoops === undefined
        ? String(context.planLoop)
        : `${context.planLoop} of ${context.maxPlanLoops}`,
    workspace: context.workspace,
    taskDir: context.taskDir,
    plan: context.plan,
    writeSet: bullets(
      capList(
        context.writeSet.map((p) => `\`${capText(p, MAX_EMBEDDED_LINE)}\``),
        MAX_LISTED_PATHS,
        context.plan,
      ),
      '(none listed)',
    ),
    openItems: bullets(capLines(input.openItems ?? []), '(none; confirm every item)'),
    notes: bullets(capLines(input.notes ?? []), '(none)'),
  };
  if (input.review) {
    Object.assign(values, {
      reviewFile: input.review.reviewFile,
      nextPlan: input.review.nextPlan,
      nextPlanLoop: context.planLoop + 1,
      loopsLeft: input.review.loopsLeft,
    });
  }
  const parts = [
    fillPromptTemplate('boundary', templates.boundary, values),
    // The red-team review follows the review contract; its brief is added by its stage.
    fillPromptTemplate(template, templates[template], values),
  ];
  if (input.failover) {
    parts.push(
      fillPromptTemplate('failover-context', templates['failover-context'], {
        ...values,
        ...input.failover,
      }),
    );
  }
  if (input.correction) {
    const c = input.correction;
    parts.push(
      fillPromptTemplate('correction', templates.correction, {
        source: c.source,
        summary: capText(c.summary, MAX_EMBEDDED_LINE),
        evidence: c.evidence.length > 0 ? ['```', ...capLines(c.evidence), '```'].join('\n') : '',
        correctionFile: c.file ?? '(not kept)',
      }),
    );
  }
  return `${parts.map((p) => p.trim()).join('\n\n')}\n`;
}
