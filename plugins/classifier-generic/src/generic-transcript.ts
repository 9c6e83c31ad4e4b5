import { defineTranscript, type TranscriptPlugin } from '@switchyard/core';

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const parts = value.map((v) =>
      typeof v === 'object' && v !== null ? text((v as Record<string, unknown>).text) : text(v),
    );
    const joined = parts.filter(Boolean).join('');
    return joined === '' ? undefined : joined;
  }
  return undefined;
}

/**
 * Readable transcript for any JSONL agent: `[type] role: text` from the common fields
 * (`type`, `role`, `message`, `content`, `text`, `error`).
 */
export function genericTranscript(): TranscriptPlugin {
  return defineTranscript({
    meta: { name: '@switchyard/classifier-generic/transcript', version: '0.0.0' },
    agents: '*',
    formatEvent(event) {
      const type = typeof event.type === 'string' ? event.type : 'event';
      const role = typeof event.role === 'string' ? `${event.role}: ` : '';
      const error = event.error;
      const errorText =
        typeof error === 'string'
          ? error
          : typeof error === 'object' && error !== null
            ? text((error as Record<string, unknown>).message)
            : undefined;
      const body =
        text(event.text) ??
        text(event.content) ??
        text(event.message) ??
        text(event.result) ??
        errorText;
      return body === undefined ? undefined : `[${type}] ${role}${body}`;
    },
  });
}
