/** The task the crash case's child works on, and the lease it holds it with. */
export const CRASH_TASK = 'g/crash';
export const CRASH_TTL_MS = 60_000;
