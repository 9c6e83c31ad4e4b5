#!/usr/bin/env node
import { runFakeAgentCli } from './fake-agent/cli.js';

process.exitCode = await runFakeAgentCli(process.argv.slice(2));
