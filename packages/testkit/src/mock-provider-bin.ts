#!/usr/bin/env node
import { runMockProviderCli } from './mock-provider/cli.js';

process.exitCode = await runMockProviderCli(process.argv.slice(2));
