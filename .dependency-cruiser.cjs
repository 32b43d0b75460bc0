// The import rules of `npm run check` (docs/ARCHITECTURE.md names the layers). Tests and benchmarks drive the daemon
// and the workers in-process, so the rules hold for the shipped code: src/ and workers/.
const error = (name, comment, from, to, more = {}) => ({ name, comment, severity: 'error', from, to, ...more });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    error(
      'web-imports-only-wire',
      'Leo Web reads the daemon only through the contract in src/wire/ (npm packages are fine).',
      { path: '^src/web/' },
      { path: '^(src|workers)/', pathNot: '^src/(web|wire)/' },
    ),
    error(
      'wire-imports-only-zod',
      'src/wire/ is pure zod: it imports zod and itself, nothing of node or of the daemon.',
      { path: '^src/wire/' },
      { pathNot: '^(src/wire/|node_modules/zod/)' },
    ),
    error(
      'nothing-imports-daemon',
      'src/daemon/ is the composition root: only the `leo daemon` command that starts it imports it (and it itself).',
      { path: '^(src|workers)/', pathNot: '^(src/daemon/|src/cli/daemon-command\\.ts$)' },
      { path: '^src/daemon/' },
    ),
    error(
      'only-pool-imports-workers',
      'Worker files run in the pool threads; src/ reaches them only through src/pool/, which takes their types.',
      { path: '^src/', pathNot: '^src/pool/' },
      { path: '^workers/' },
    ),
    error(
      'pool-imports-workers-types-only',
      'src/pool/ names the worker tasks by their types; loading worker code on the main thread defeats the pool.',
      { path: '^src/pool/' },
      { path: '^workers/', dependencyTypesNot: ['type-only'] },
    ),
    error(
      'no-folder-cycles',
      'Folders depend on each other one way; a cycle between two folders means one concept split in two.',
      { path: '^(src|workers)/' },
      { circular: true },
      { scope: 'folder' },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|native-bins)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.d.ts'],
    },
  },
};
