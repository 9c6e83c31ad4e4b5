import type { DefinitionOfDone, DoneAssertion, Problem } from '@switchyard/core';
import { splitArgv } from './argv.js';
import { allListItems, lineOf, type MdAnyNode, type MdSection, sourceOf } from './markdown.js';

const ASSERTION_FORMS =
  '`exit code 0` (any integer), `stdout contains "text"`, or `stdout matches /regex/`';

/** Parses an assertion: `exit code N`, `stdout contains "text"`, `stdout matches /re/`. */
export function parseAssertion(text: string): DoneAssertion | { error: string } {
  const t = text.trim().replace(/^`(.*)`$/, '$1');
  const exit = /^exit(?:s| code| status)?\s+(?:is\s+)?(-?\d+)$/i.exec(t);
  if (exit) return { kind: 'exit-code', code: Number(exit[1]) };
  const contains = /^stdout\s+contains\s+(?:"(.*)"|'(.*)'|`(.*)`)$/i.exec(t);
  if (contains)
    return { kind: 'stdout-contains', text: contains[1] ?? contains[2] ?? contains[3] ?? '' };
  const matches = /^stdout\s+matches\s+\/(.*)\/$/i.exec(t);
  if (matches) {
    try {
      new RegExp(matches[1] ?? '');
      return { kind: 'stdout-matches', pattern: matches[1] ?? '' };
    } catch (error) {
      return { error: `invalid regular expression: ${(error as Error).message}` };
    }
  }
  return { error: `unknown assertion "${t}"; use ${ASSERTION_FORMS}` };
}

/**
 * Reads `## Definition of Done`: a `Command:` line (value in backticks or plain) or else the
 * first fenced code block, and an `Assertion:` line. Lines may be paragraphs or list items.
 */
export function readDefinitionOfDone(
  section: MdSection,
  file: string,
): { done?: DefinitionOfDone; problems: Problem[] } {
  const problems: Problem[] = [];
  const err = (message: string, line: number, hint?: string) =>
    problems.push({ code: 'SY_PLAN_INVALID', message, file, line, hint, severity: 'error' });
  let command: { text: string; line: number } | undefined;
  let assertion: { text: string; line: number } | undefined;
  const blocks: MdAnyNode[] = [
    ...section.nodes.filter((n) => n.type === 'paragraph'),
    ...allListItems(section.nodes).flatMap((i) =>
      (i.children ?? []).filter((c) => c.type === 'paragraph'),
    ),
  ];
  for (const block of blocks) {
    sourceOf(block)
      .split('\n')
      .forEach((rawLine, offset) => {
        const m = /^\s*(command|assertion)\s*:\s*(.*)$/i.exec(rawLine);
        if (!m) return;
        const value = { text: (m[2] ?? '').trim(), line: lineOf(block) + offset };
        if (m[1]?.toLowerCase() === 'command') command ??= value;
        else assertion ??= value;
      });
  }
  const fence = section.nodes.find((n) => n.type === 'code');
  if (!command && fence && typeof fence.value === 'string')
    command = { text: fence.value.trim(), line: lineOf(fence) + 1 };
  if (!command) {
    err('Definition of Done has no command', section.line, 'add a line `Command: `pnpm test``');
    return { problems };
  }
  const commandText = command.text.replace(/^(`+)(.*)\1$/, '$2').trim();
  if (commandText.includes('\n')) err('Definition of Done command must be one line', command.line);
  const split = splitArgv(commandText);
  if ('error' in split || split.argv.length === 0)
    err(
      `Definition of Done command: ${'error' in split ? split.error : 'empty'}`,
      command.line,
      'commands run without a shell; put pipelines in a script and run the script',
    );
  if (!assertion) {
    err(
      'Definition of Done has no assertion',
      section.line,
      `add a line \`Assertion: exit code 0\` (forms: ${ASSERTION_FORMS})`,
    );
    return { problems };
  }
  const parsed = parseAssertion(assertion.text);
  if ('error' in parsed) err(parsed.error, assertion.line);
  if (problems.length > 0 || 'error' in split || 'error' in parsed) return { problems };
  return {
    done: { argv: split.argv, command: commandText, assertion: parsed, line: command.line },
    problems,
  };
}
