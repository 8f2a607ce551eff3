// Types of file-tmpdir.mjs, for its test (packages/server/test/file-tmpdir.test.ts).
export function fileTmpDir(): string;
export function removeTmpDir(dir: string): void;
