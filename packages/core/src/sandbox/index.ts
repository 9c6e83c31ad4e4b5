export { expandHome, planSandbox, type SandboxPlanInput } from './sandbox-plan.js';
export {
  type BwrapSandboxConfig,
  bwrapSandboxSchema,
  DEFAULT_HIDDEN_PATHS,
  type SandboxConfig,
  sandboxForTarget,
  sandboxSchema,
} from './sandbox-schema.js';
export {
  BASE_MOUNTS,
  bwrapArgs,
  type SandboxMount,
  type SandboxMountReason,
  type SandboxSpec,
  sandboxedArgv,
  sandboxProbeArgv,
} from './sandbox-spec.js';
