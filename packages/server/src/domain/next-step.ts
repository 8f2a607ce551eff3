// What a person can do about an assistant that is not ready, by its status: a step that works from
// there (issue 61: a chat with an unpaid slot suggested watching a status that would never change).
export function nextStepWhenNotReady(status: string, id: string): string {
  switch (status) {
    case 'purchased':
      return `It is not activated yet: pay for it if you have not (berth assistants pay ${id}), then activate it (berth assistants activate ${id}).`;
    case 'stopped':
      return `It does not run until it is deployed again: berth assistants redeploy ${id}.`;
    case 'failed':
      return `Its status message says why (berth status ${id}); fix that, then berth assistants redeploy ${id}.`;
    default:
      return `Follow it with: berth status ${id} --watch.`;
  }
}
