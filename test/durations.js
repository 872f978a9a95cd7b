/**
 * `node test/durations.js RUN.json`: writes ./durations.json from a `jest --json` run's file durations
 * (see ./sequencer.js).
 */
const fs = require('node:fs');
const path = require('node:path');
const run = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const durations = Object.fromEntries(
  run.testResults
    .map((r) => [path.relative(__dirname, r.name), Math.round((r.endTime - r.startTime) / 100) / 10])
    .sort((a, b) => b[1] - a[1]),
);
fs.writeFileSync(path.join(__dirname, 'durations.json'), JSON.stringify(durations, null, 2) + '\n');
process.stdout.write(`${Object.keys(durations).length} files written to test/durations.json\n`);
