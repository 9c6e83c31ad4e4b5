import {
  type Classification,
  type ClassifierPlugin,
  type ClassifyContext,
  SwitchyardError,
  type TerminalEvidence,
} from '@switchyard/core';

/** Classifiers that serve the agent: agent-specific ones first (in given order), `'*'` last. */
export function classifiersFor(
  agent: string,
  classifiers: readonly ClassifierPlugin[],
): ClassifierPlugin[] {
  const specific = classifiers.filter((c) => c.agents !== '*' && c.agents.includes(agent));
  const generic = classifiers.filter((c) => c.agents === '*');
  return [...specific, ...generic];
}

/** The verdict when no classifier spoke: success only for a clean exit with nothing against it. */
export function fallbackClassification(evidence: TerminalEvidence): Classification {
  const last = evidence.terminalEvents.at(-1)?.raw;
  if (evidence.endedBy !== undefined || evidence.signal !== null) {
    const why = evidence.endedBy ?? `signal ${evidence.signal}`;
    return { class: 'process-termination', confidence: 'likely', evidence: [`ended by ${why}`] };
  }
  if (evidence.exitCode === 0 && last === undefined) {
    return { class: 'success', confidence: 'certain', evidence: [] };
  }
  const line = last ?? evidence.stderrTail.at(-1) ?? evidence.stdoutTail.at(-1);
  const lines = line === undefined ? [`exit code ${evidence.exitCode}`] : [line];
  return { class: 'generic-error', confidence: 'weak', evidence: lines };
}

/**
 * Runs the classifiers that serve `evidence.agent` (agent-specific first, generic last); the
 * first verdict wins and names its classifier. When none speaks, the fallback decides
 * (classifier `core`). A classifier that throws is a bug in that plugin and is reported.
 */
export async function classifyEvidence(
  evidence: TerminalEvidence,
  classifiers: readonly ClassifierPlugin[],
  context: ClassifyContext,
): Promise<Classification> {
  for (const classifier of classifiersFor(evidence.agent, classifiers)) {
    let verdict: Classification | undefined;
    try {
      verdict = await classifier.classify(evidence, context);
    } catch (cause) {
      throw new SwitchyardError(
        'SY_CLASSIFIER_FAILED',
        `Classifier "${classifier.meta.name}" threw while classifying an attempt of "${evidence.agent}".`,
        { cause, hint: 'Fix or remove that classifier plugin; its error is attached as cause.' },
      );
    }
    if (verdict !== undefined) return { ...verdict, classifier: classifier.meta.name };
  }
  return { ...fallbackClassification(evidence), classifier: 'core' };
}
