// Every user operation in every state a deployment can be in (status × prebuy × payment ×
// configured), each with a label naming it: the space the state-machine tests walk in full.
import { PAYMENT_STATUSES, STATUSES, type DeploymentStatus, type PaymentStatus } from '../../src/domain/deployment.js';
import type { Operation } from '../../src/domain/transitions.js';

const OPERATIONS: Operation[] = ['activate', 'update', 'redeploy', 'stop', 'delete'];

export interface OperationCase {
  op: Operation;
  state: { status: DeploymentStatus; isPrebuy: boolean; paymentStatus: PaymentStatus; configured: boolean };
  label: string;
}

export function everyOperationCase(): OperationCase[] {
  const cases: OperationCase[] = [];
  for (const op of OPERATIONS)
    for (const status of STATUSES)
      for (const isPrebuy of [true, false])
        for (const paymentStatus of PAYMENT_STATUSES)
          for (const configured of [true, false])
            cases.push({
              op,
              state: { status, isPrebuy, paymentStatus, configured },
              label: `${op} from ${status} prebuy=${isPrebuy} pay=${paymentStatus} configured=${configured}`,
            });
  return cases;
}
