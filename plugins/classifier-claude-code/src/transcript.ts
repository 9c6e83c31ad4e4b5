import { formatStreamJsonEvent } from '@switchyard/classifier-generic';
import { defineTranscript, type TranscriptPlugin } from '@switchyard/core';

/** Transcript formatter for Claude Code. */
export function claudeCodeTranscript(): TranscriptPlugin {
  return defineTranscript({
    meta: { name: '@switchyard/classifier-claude-code/transcript', version: '0.0.0' },
    agents: ['claude-code'],
    formatEvent: formatStreamJsonEvent,
  });
}
