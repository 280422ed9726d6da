// Lint for the whole repository (npm run lint; part of npm test). Type-aware rules need the TypeScript JS API, which
// TypeScript 7 does not ship: the project typechecks with TypeScript 6 (docs/decisions.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '.output/**',
      '.wxt/**',
      'node_modules/**',
      'bench/**/out/**',
      'tests/artifacts/**',
      'public/**',
      'tests/fixtures/.bench/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its error: the bug class behind unhandled worker and relay failures.
      '@typescript-eslint/no-floating-promises': 'error',
      // A new message or phase must be handled everywhere a switch decides on it.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-undef': 'off', // TypeScript checks names; browser, worker and Node globals mix in this repository
      // Sanitisers match control characters on purpose (names, headers, page text).
      'no-control-regex': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
