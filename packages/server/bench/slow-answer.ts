// The long answer of bench:gateway's concurrent-streams rows, shared by the router that streams it
// and the chats that ask for it (a module of its own, so the router does not load the agent).
export const SLOW_PROMPT = 'stream slowly';
/** SLOW_WORDS words, one every SLOW_CHUNK_MS: about a model's pace. */
export const SLOW_WORDS = 30;
export const SLOW_CHUNK_MS = 200;
/** How long one slow answer takes at the router: the length of a chat's call. */
export const SLOW_ANSWER_MS = SLOW_WORDS * SLOW_CHUNK_MS;
