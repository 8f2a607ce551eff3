// What metering needs to know about a deployment. Its own type-only module: services.ts
// names it, and allowance.ts takes the Services bag, so neither may import the other.
import type { Deployment } from '../domain/deployment.js';

export type Metered = Pick<
  Deployment,
  'id' | 'userId' | 'organizationId' | 'apiMode' | 'currentPeriodEnd' | 'userCallbackUrl' | 'generation'
>;
