import type { Caller, Services } from '../services.js';
import { loadOwned } from './load-owned.js';

export const getDeployment = (s: Pick<Services, 'deployments'>, caller: Caller, id: string) => loadOwned(s, caller, id);
