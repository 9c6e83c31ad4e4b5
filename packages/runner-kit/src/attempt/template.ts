import {
  SwitchyardError,
  TEMPLATE_PLACEHOLDERS,
  type TemplatePlaceholder,
  type TemplateValues,
} from '@switchyard/core';

const PLACEHOLDER = /\{([a-z_]+)\}/g;

/**
 * Fills `{key}` placeholders in each argv element. Values are substituted inside their
 * element and never split: `{prompt}` stays exactly one argv element whatever it contains
 * (spaces, quotes, newlines), and no shell ever sees it. Every unknown or unset placeholder
 * is reported at once.
 */
export function fillTemplate(argv: readonly string[], values: TemplateValues): string[] {
  const problems: string[] = [];
  const filled = argv.map((element, index) =>
    element.replace(PLACEHOLDER, (whole, key: string) => {
      if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(key)) {
        problems.push(`argv[${index}]: unknown placeholder ${whole}`);
        return whole;
      }
      const value = values[key as TemplatePlaceholder];
      if (value === undefined) {
        problems.push(`argv[${index}]: no value for ${whole}`);
        return whole;
      }
      return value;
    }),
  );
  if (problems.length > 0) {
    throw new SwitchyardError(
      'SY_CATALOG_INVALID',
      `Cannot fill command template: ${problems.join('; ')}.`,
      {
        hint: `Templates may use only ${TEMPLATE_PLACEHOLDERS.map((k) => `{${k}}`).join(', ')}; {session_id}/{resume_session} only in resume_command.`,
        problems: problems.map((message) => ({ code: 'SY_CATALOG_INVALID' as const, message })),
      },
    );
  }
  return filled;
}
