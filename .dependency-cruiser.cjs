// The import rules of `npm run check` (docs/ARCHITECTURE.md names the layers). Tests and benchmarks drive the daemon
// and the workers in-process, so the rules hold for the shipped code: src/ and workers/.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'web-imports-only-wire',
      comment: 'Leo Web reads the daemon only through the contract in src/wire/ (npm packages are fine).',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^(src|workers)/', pathNot: '^src/(web|wire)/' },
    },
    {
      name: 'wire-imports-only-zod',
      comment: 'src/wire/ is pure zod: it imports zod and itself, nothing of node or of the daemon.',
      severity: 'error',
      from: { path: '^src/wire/' },
      to: { pathNot: '^(src/wire/|node_modules/zod/)' },
    },
    {
      name: 'nothing-imports-daemon',
      comment:
        'src/daemon/ is the composition root: only the `leo daemon` command that starts it imports it (and it itself).',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: '^(src/daemon/|src/cli/daemon-command\\.ts$)' },
      to: { path: '^src/daemon/' },
    },
    {
      name: 'only-pool-imports-workers',
      comment:
        'Worker files run in the pool threads; src/ reaches them only through src/pool/, which takes their types.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/pool/' },
      to: { path: '^workers/' },
    },
    {
      name: 'pool-imports-workers-types-only',
      comment:
        'src/pool/ names the worker tasks by their types; loading worker code on the main thread defeats the pool.',
      severity: 'error',
      from: { path: '^src/pool/' },
      to: { path: '^workers/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Folders depend on each other one way; a cycle between two folders means one concept split in two.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(src|workers)/' },
      to: { circular: true },
    },
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
    reporterOptions: { text: { highlightFocused: true } },
  },
};
