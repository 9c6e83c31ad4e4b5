import { TEMPLATE_PLACEHOLDERS } from '@switchyard/core';
import { hiddenShell } from './shell-wrappers.js';

/** A problem found in one template string, relative to that string. */
export interface TemplateFault {
  message: string;
  hint: string;
}

const PLACEHOLDER = /\{\s*([A-Za-z_][\w.-]*)\s*\}/g;
const ALLOWED = new Set<string>(TEMPLATE_PLACEHOLDERS);
const ALLOWED_LIST = TEMPLATE_PLACEHOLDERS.map((p) => `{${p}}`).join(' ');

/** Checks the `{placeholder}`s of one template string; returns every fault. */
export function checkPlaceholders(value: string): TemplateFault[] {
  const faults: TemplateFault[] = [];
  for (const match of value.matchAll(PLACEHOLDER)) {
    const [whole, name = ''] = match;
    if (!ALLOWED.has(name)) {
      faults.push({
        message: `unknown placeholder ${whole}`,
        hint: `templates may use only ${ALLOWED_LIST}`,
      });
    } else if (whole !== `{${name}}`) {
      faults.push({ message: `placeholder ${whole} has spaces`, hint: `write it as {${name}}` });
    }
  }
  return faults;
}

const SHELL_OPERATOR = /(&&|\|\||[|;<>`]|\$\(|\$\{[^}]*\}\s*[|;&])/;

/**
 * Refuses argv templates that smuggle a shell: the executable element holding a whole
 * command line, an element with shell operators between words, or `sh -c ...`.
 * Commands run without a shell, so such a line would never do what its author meant.
 */
export function checkArgv(argv: readonly string[]): { index: number; fault: TemplateFault }[] {
  const faults: { index: number; fault: TemplateFault }[] = [];
  const hint =
    'write the command as an argv array, one element per argument: ["tool", "--flag", "{prompt}"]';
  argv.forEach((element, index) => {
    const hasSpace = /\s/.test(element.trim());
    if (index === 0 && hasSpace) {
      faults.push({ index, fault: { message: `"${element}" looks like a shell line`, hint } });
    } else if (hasSpace && SHELL_OPERATOR.test(element)) {
      faults.push({
        index,
        fault: { message: `"${element}" looks like a shell line (no shell runs it)`, hint },
      });
    }
  });
  const shell = hiddenShell(argv);
  if (shell) {
    faults.push({
      index: 0,
      fault: {
        message: `"${argv.join(' ').slice(0, 120)}" runs a shell or inline code (${shell})`,
        hint: 'call the agent program directly; switchyard never runs commands through a shell, a wrapper around one, or an interpreter given inline code',
      },
    });
  }
  return faults;
}

/** Fills a template's placeholders; unknown names stay as written (validation rejects them). */
export function renderTemplate(
  template: string,
  values: Partial<Record<(typeof TEMPLATE_PLACEHOLDERS)[number], string>>,
): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values[name as keyof typeof values];
    return value === undefined ? whole : value;
  });
}
