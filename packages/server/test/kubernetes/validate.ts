// Checks Kubernetes objects against the API's OpenAPI schemas (kubernetes-models validates them).
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { PersistentVolumeClaim, Pod, Secret, Service } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  Deployment,
  StatefulSet,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  NetworkPolicy,
};

/** The JSON the client sends: its models name a few fields differently (`_from` is `from`). */
export function wire<T>(obj: T): any {
  return JSON.parse(
    JSON.stringify(obj, (_k, v) => {
      if (v && typeof v === 'object' && !Array.isArray(v) && '_from' in v) {
        const { _from, ...rest } = v as Record<string, unknown>;
        return { from: _from, ...rest };
      }
      return v;
    }),
  );
}

export function validateObject(obj: { kind?: string }): void {
  const Model = MODELS[obj.kind ?? ''];
  if (!Model) throw new Error(`no schema for kind ${obj.kind}`);
  new Model(wire(obj)).validate();
}
