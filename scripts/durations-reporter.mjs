// A node test reporter writing one JSON line per test file that passed: its path and its time in seconds. Node 20
// reports each file it runs as a nesting-0 test named by its path (the process's start and imports included); a file
// run inside a batch (run-tests.mjs) has no such test, so its top-level tests' times are summed by the file they
// come from, and the file counts as passed only if each of them did.
export default async function* durations(source) {
  const batched = new Map();
  for await (const { type, data } of source) {
    if (type !== 'test:complete' || data.nesting !== 0) continue;
    if (data.name === data.file) {
      if (data.details.passed && !data.file.includes('/leo-batch-'))
        yield JSON.stringify({ file: data.file, seconds: data.details.duration_ms / 1000 }) + '\n';
      continue;
    }
    const sum = batched.get(data.file) ?? { seconds: 0, passed: true };
    sum.seconds += data.details.duration_ms / 1000;
    sum.passed &&= data.details.passed;
    batched.set(data.file, sum);
  }
  for (const [file, { seconds, passed }] of batched)
    if (passed) yield JSON.stringify({ file, seconds, batched: true }) + '\n';
}
