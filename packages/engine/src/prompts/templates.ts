import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { type Problem, SwitchyardError } from '@switchyard/core';

/**
 * The placeholders each prompt template may use (`{{name}}`). Overrides are checked
 * against these lists, so a typo fails before any agent starts.
 */
export const PROMPT_PLACEHOLDERS = {
  boundary: ['role', 'attemptId', 'task', 'planLoop', 'planLoopOf', 'workspace'],
  worker: ['plan', 'workspace', 'taskDir', 'writeSet', 'planLoop', 'planLoopOf', 'task'],
  selfcheck: ['plan', 'workspace', 'taskDir', 'openItems', 'planLoop', 'planLoopOf', 'task'],
  review: [
    'plan',
    'workspace',
    'taskDir',
    'planLoop',
    'planLoopOf',
    'task',
    'reviewFile',
    'nextPlan',
    'nextPlanLoop',
    'loopsLeft',
  ],
  fixup: ['plan', 'workspace', 'taskDir', 'writeSet', 'notes', 'planLoop', 'planLoopOf', 'task'],
  'failover-context': [
    'priorTarget',
    'failureClass',
    'priorLocator',
    'priorNormalizedOutput',
    'priorStream',
    'workspace',
    'plan',
  ],
  correction: ['source', 'summary', 'evidence', 'correctionFile'],
} as const;

/** Names of the prompt templates (files `assets/prompts/<name>.md`). */
export type PromptTemplateName = keyof typeof PROMPT_PLACEHOLDERS;
export const PROMPT_TEMPLATE_NAMES = Object.keys(PROMPT_PLACEHOLDERS) as PromptTemplateName[];

/** Loaded template texts by name. */
export type PromptTemplates = Record<PromptTemplateName, string>;

/** Where templates come from. */
export interface LoadPromptOptions {
  /** Directory with the bundled `<name>.md` templates (`assetPath('prompts')`). */
  templatesDir: string;
  /** Project config `prompts`: template name -> file path (relative to `configDir`). */
  overrides?: Readonly<Record<string, string>>;
  /** Directory of the project config file. */
  configDir?: string;
  /** Config file, for messages. */
  configFile?: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][\w-]*)\s*\}\}/g;

/**
 * Loads every template, applying project overrides. The boundary cannot be overridden: every
 * prompt starts with it whatever the project configures. Unknown template names, unreadable
 * files and unknown placeholders are reported together as `SY_CONFIG_INVALID`.
 */
export function loadPromptTemplates(options: LoadPromptOptions): PromptTemplates {
  const problems: Problem[] = [];
  const overrides = options.overrides ?? {};
  for (const name of Object.keys(overrides)) {
    if (name === 'boundary') {
      problems.push(
        configProblem(
          options,
          `prompts.${name}`,
          'the dispatcher-child boundary cannot be overridden',
          'Remove the key; put project rules into the other templates.',
        ),
      );
    } else if (!(name in PROMPT_PLACEHOLDERS)) {
      problems.push(
        configProblem(
          options,
          `prompts.${name}`,
          `unknown prompt template "${name}"`,
          `Known templates: ${PROMPT_TEMPLATE_NAMES.filter((n) => n !== 'boundary').join(', ')}.`,
        ),
      );
    }
  }
  const templates = {} as PromptTemplates;
  for (const name of PROMPT_TEMPLATE_NAMES) {
    const override = name === 'boundary' ? undefined : overrides[name];
    const file = override
      ? isAbsolute(override)
        ? override
        : resolve(options.configDir ?? process.cwd(), override)
      : join(options.templatesDir, `${name}.md`);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      problems.push(
        override
          ? configProblem(
              options,
              `prompts.${name}`,
              `cannot read prompt template ${file}: ${reason}`,
              'Fix the path (relative to the config file).',
            )
          : { code: 'SY_INTERNAL', message: `bundled prompt template missing: ${file}`, file },
      );
      continue;
    }
    const allowed = PROMPT_PLACEHOLDERS[name] as readonly string[];
    for (const match of text.matchAll(PLACEHOLDER)) {
      if (!allowed.includes(match[1]!)) {
        const line = text.slice(0, match.index).split('\n').length;
        problems.push({
          code: 'SY_CONFIG_INVALID',
          message: `unknown placeholder {{${match[1]}}} in the ${name} prompt template`,
          file,
          line,
          hint: `Placeholders of ${name}: ${allowed.map((p) => `{{${p}}}`).join(' ')}.`,
        });
      }
    }
    templates[name] = text;
  }
  if (problems.length > 0) {
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `${problems.length} problem(s) in the prompt templates.`,
      { problems },
    );
  }
  return templates;
}

/** Fills `{{name}}` placeholders; a value missing for a used placeholder is a bug. */
export function fillPromptTemplate(
  name: PromptTemplateName,
  text: string,
  values: Readonly<Record<string, string | number>>,
): string {
  return text.replace(PLACEHOLDER, (_, key: string) => {
    const value = values[key];
    if (value === undefined) {
      throw new SwitchyardError('SY_INTERNAL', `prompt template ${name}: no value for {{${key}}}`);
    }
    return String(value);
  });
}

function configProblem(
  options: LoadPromptOptions,
  path: string,
  message: string,
  hint: string,
): Problem {
  return {
    code: 'SY_CONFIG_INVALID',
    message,
    path,
    hint,
    ...(options.configFile ? { file: options.configFile } : {}),
  };
}
