#!/usr/bin/env node
// Committed so a workspace install can link the bin before the first build (see ../README.md).
import '../dist/mock-provider-bin.js';
