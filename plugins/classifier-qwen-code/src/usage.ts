import { streamJsonResultUsage } from '@switchyard/classifier-generic';

/** Tokens and cost from Qwen Code's final stream-json `result` event; text output reports none. */
export const qwenCodeUsage = streamJsonResultUsage;
