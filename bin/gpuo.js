#!/usr/bin/env node
// `gpuo`: the CLI of the GPU orchestrator (src/cli/gpuo), run through tsx like the npm scripts.
require('tsx/cjs');
require('../src/cli/gpuo/main.ts').main();
