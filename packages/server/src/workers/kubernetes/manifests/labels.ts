// The labels that mark what Berth created in the workers namespace, so listing and cleaning up
// never touches anything else there.
export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const COMPONENT = 'app.kubernetes.io/component';
export const WORKER = 'berth.dev/worker';
export const BERTH = 'berth';

export type Component = 'worker' | 'agent-host';

export function labelsFor(component: Component, worker?: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'berth-agent',
    'app.kubernetes.io/part-of': BERTH,
    [MANAGED_BY]: BERTH,
    [COMPONENT]: component,
    ...(worker ? { [WORKER]: worker } : {}),
  };
}

/** Selects everything of one component Berth manages (a label selector string for list and watch). */
export function selectorFor(component: Component): string {
  return `${MANAGED_BY}=${BERTH},${COMPONENT}=${component}`;
}
