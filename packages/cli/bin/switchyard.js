#!/usr/bin/env node
// The installed `switchyard` command. A committed file rather than dist/bin.js itself, so a
// workspace install links the bin before the first build (pnpm links bins at install time and
// warns "Failed to create bin" for a file that does not exist yet).
import '../dist/bin.js';
