// Lint: TypeScript's recommended rules, plus the determinism rule of DESIGN.md — code in core/
// never reads the wall clock or unseeded randomness except in the clock and RNG modules.
import tseslint from 'typescript-eslint';

const banned = [
  { object: 'Date', property: 'now', message: 'Use the injected Clock (core/machinery/clock.ts).' },
  { object: 'Math', property: 'random', message: 'Use the injected Rng (core/machinery/rng.ts).' },
  { object: 'performance', property: 'now', message: 'Use the injected Clock (core/machinery/clock.ts).' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['core/**/*.ts'],
    ignores: ['core/machinery/clock.ts', 'core/machinery/rng.ts', 'core/**/*.test.ts'],
    rules: {
      'no-restricted-properties': ['error', ...banned],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use the injected Clock (core/machinery/clock.ts).' },
        { name: 'setInterval', message: 'Use the injected Clock (core/machinery/clock.ts).' },
        { name: 'performance', message: 'Use the injected Clock (core/machinery/clock.ts).' },
      ],
    },
  },
);
