/**
 * Prints one plain closing line, "tests: N passed, N failed[, N skipped]", that CI reads to count what ran.
 */
class SummaryLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedSuites = results.numRuntimeErrorTestSuites;
    const line =
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests + failedSuites} failed` +
      (skipped ? `, ${skipped} skipped` : '');
    process.stdout.write(`\n${line}\n`);
  }
}
module.exports = SummaryLineReporter;
