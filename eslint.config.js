// The lint half of `npm run check`: a few type-aware rules that catch what tsc does not (a promise nobody awaits, a
// switch that forgot a case, a value import used only as a type), and the rule that keeps harness knowledge in
// src/harnesses/. Style is prettier's job, so no stylistic rule is on here.
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const HARNESS = '/^(claude|codex|opencode|shell)$/';
// A table keyed by harness is spotted by a key that can only mean a CLI; `shell` alone is also a spawn option.
const TABLE_KEY = '/^(claude|codex|opencode)$/';
const HARNESS_MESSAGE =
  'Branching on a harness name belongs in src/harnesses/ (the HarnessAdapter table); ask the adapter instead.';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'native-bins/**', 'src/web/public/**'] },
  {
    files: ['{src,workers,test,benchmarks}/**/*.{ts,tsx}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // Each file is checked with its own tsconfig (src/web has one of its own); vite.config.ts is in none.
        projectService: { allowDefaultProject: ['src/web/vite.config.ts'] },
        tsconfigRootDir: fileURLToPath(new URL('.', import.meta.url)),
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test runs and awaits its own tests and suites; the promise they return is only for nesting.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['{src,workers,benchmarks}/**/*.{ts,tsx}'],
    // The config schema and its init template name the harnesses by design: they are where a user's choice is read.
    ignores: ['src/harnesses/**', 'src/config/schema.ts', 'src/config/init-template.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `BinaryExpression[operator=/^[!=]==?$/] > Literal[value=${HARNESS}]`,
          message: HARNESS_MESSAGE,
        },
        { selector: `SwitchCase > Literal.test[value=${HARNESS}]`, message: HARNESS_MESSAGE },
        {
          selector: `ObjectExpression > Property > :matches(Identifier.key[name=${TABLE_KEY}], Literal.key[value=${TABLE_KEY}])`,
          message: HARNESS_MESSAGE,
        },
      ],
    },
  },
);
