export type { SandboxMount, SandboxMountReason, SandboxSpec } from './sandbox-spec.js';
