export {
  type BwrapSandboxConfig,
  bwrapSandboxSchema,
  DEFAULT_HIDDEN_PATHS,
  type SandboxConfig,
  sandboxForTarget,
  sandboxSchema,
} from './sandbox-schema.js';
export type { SandboxMount, SandboxMountReason, SandboxSpec } from './sandbox-spec.js';
