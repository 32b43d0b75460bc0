// Preloaded into every test process (`node --import`). node:test's --test-force-exit ends a file's process with
// process.exit() as soon as its last test is done, while the events of its last tests may still sit in the stream
// that carries them to the runner: those verdicts are lost, and the run passes having counted fewer tests
// (nodejs/node#64833; seen here as 1 473 of 1 511, the tail of one batch). That exit, and only that one, is deferred
// two turns of the loop so the stream flows out first.
const exit = process.exit.bind(process);
process.exit = (code) => {
  if (!/internal\/test_runner/.test(new Error().stack ?? '')) return exit(code);
  setImmediate(() => setImmediate(() => exit(code)));
};
