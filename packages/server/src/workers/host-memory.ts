// The agent host's allocator setting, for every backend that starts one. glibc raises its mmap
// threshold after the first large block is freed, so later downloads (Telegram files of ~1 MB) are
// carved from its heap and stay there: bench:media measured the host 44 MB above idle after 20
// PDFs, 27 MB with the threshold pinned at 128 KiB, flat over later rounds (decision 0023).
// Other C libraries ignore the variable.
export const HOST_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' } as const;
