import type { DoneAssertion } from '@switchyard/core';

/** A Definition-of-Done assertion as written in a plan: `exit code 0`, `stdout contains "x"`… */
export function assertionText(assertion: DoneAssertion): string {
  switch (assertion.kind) {
    case 'exit-code':
      return `exit code ${assertion.code}`;
    case 'stdout-contains':
      return `stdout contains ${JSON.stringify(assertion.text)}`;
    case 'stdout-matches':
      return `stdout matches /${assertion.pattern}/`;
  }
}
