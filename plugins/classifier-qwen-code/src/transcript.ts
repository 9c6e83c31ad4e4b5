import { formatStreamJsonEvent } from '@switchyard/classifier-generic';
import { defineTranscript, type TranscriptPlugin } from '@switchyard/core';

/** Transcript formatter for Qwen Code (its stream-json follows the shared system/assistant/result shape). */
export function qwenCodeTranscript(): TranscriptPlugin {
  return defineTranscript({
    meta: { name: '@switchyard/classifier-qwen-code/transcript', version: '0.0.0' },
    agents: ['qwen-code'],
    formatEvent: formatStreamJsonEvent,
  });
}
