// Types of test-output.mjs, for its test (packages/server/test/test-output.test.ts).
export function parseCounts(output: string): {
  tests: number;
  pass: number;
  fail: number;
  skipped: number;
  cancelled: number;
};
export function failingTests(output: string): string;
export function failuresSoFar(tapFile: string): string;
export function reporterArgs(tapFile: string): string[];
