import { describeCrashTrials } from './crash-trials.js';

// Part 4 of the crash trials (see crash-trials.ts): the workers share the parts out.
describeCrashTrials(4, 4);
