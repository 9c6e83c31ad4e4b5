import type { ProjectGateResult } from '@switchyard/core';

/** One line per gate: `name (on): passed|FAILED — detail`. */
export function gateResultLine(result: ProjectGateResult): string {
  return `${result.name} (${result.on}, loop ${result.planLoop}): ${result.passed ? 'passed' : 'FAILED'} — ${result.detail}`;
}
