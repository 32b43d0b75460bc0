// A node test reporter writing one JSON line per test file that passed: its path and its whole time in seconds (the
// process's start and imports included). Node 20 reports each file as a nesting-0 test named by its path.
export default async function* durations(source) {
  for await (const event of source) {
    const { type, data } = event;
    if (type !== 'test:complete' || data.nesting !== 0 || data.name !== data.file || !data.details.passed) continue;
    yield JSON.stringify({ file: data.file, seconds: data.details.duration_ms / 1000 }) + '\n';
  }
}
