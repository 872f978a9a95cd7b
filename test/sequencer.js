/**
 * Jest's order, heaviest first, also on a machine with no jest cache (a fresh CI clone): a file's duration is
 * the cached one of an earlier run on this machine or else the one in ./durations.json (seconds, measured on
 * the 2-core reference machine). Without it a fresh run orders by file size and can start a 2-minute file last.
 * Refresh the list after a whole run:
 * `npx jest --json --outputFile=/tmp/run.json && node test/durations.js /tmp/run.json`.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./durations.json');

class HeaviestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const seconds = durations[path.relative(__dirname, test.path)];
    return seconds == null ? undefined : seconds * 1000;
  }
}
module.exports = HeaviestFirst;
