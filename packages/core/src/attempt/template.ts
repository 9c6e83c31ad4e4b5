import { TEMPLATE_PLACEHOLDERS, type TemplatePlaceholder } from '../catalog/constants.js';
import { SwitchyardError } from '../errors.js';

/** Placeholders a catalog argv template may use (the catalog's list, under this module's name). */
export const TEMPLATE_KEYS = TEMPLATE_PLACEHOLDERS;

export type TemplateKey = TemplatePlaceholder;
export type TemplateValues = Partial<Record<TemplateKey, string>>;

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
      if (!(TEMPLATE_KEYS as readonly string[]).includes(key)) {
        problems.push(`argv[${index}]: unknown placeholder ${whole}`);
        return whole;
      }
      const value = values[key as TemplateKey];
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
        hint: `Templates may use only ${TEMPLATE_KEYS.map((k) => `{${k}}`).join(', ')}; {session_id}/{resume_session} only in resume_command.`,
        problems: problems.map((message) => ({ code: 'SY_CATALOG_INVALID' as const, message })),
      },
    );
  }
  return filled;
}
