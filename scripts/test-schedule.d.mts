// Types of test-schedule.mjs, for its test (packages/server/test/test-schedule.test.ts).
export type RecordedTime = { ms: number; cpuMs?: number };
export const WAITING_SHARE_OF_RUN: number;
export const WAITING_MIN_MS: number;
export function recordedTime(value: unknown): RecordedTime | undefined;
export function runShare(times: (RecordedTime | undefined)[]): number | undefined;
export function waits(time: RecordedTime | undefined, share: number | undefined): boolean;
type How<J> = { lane: 'waiting' | 'computing'; waiting: (job: J) => boolean; ready: (job: J) => boolean };
export function nextIndex<J>(pending: J[], how: How<J>): number;
export function hasWork<J>(pending: J[], how: Pick<How<J>, 'lane' | 'waiting'>): boolean;
export function cpuMeter(read: () => number): { exited(): { ms: number } };
