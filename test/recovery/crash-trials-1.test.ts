import { describeCrashTrials } from './crash-trials.js';

// Part 1 of the crash trials (see crash-trials.ts): the workers share the parts out.
describeCrashTrials(1, 4);
