// The mode rules of DESIGN.md §2 for provider, model and key, shared by activate and update.
import { AppError } from '../platform/errors/app-error.js';
import type { ApiMode } from '../domain/deployment.js';
import type { ModelCatalog } from '../catalog/index.js';

export interface ModelChoice {
  modelProvider: string;
  modelId: string;
}

function invalid(message: string, details?: unknown): AppError {
  return new AppError('INVALID_INPUT', message, details);
}

export function resolveModel(
  catalog: ModelCatalog,
  managedProvider: string,
  mode: ApiMode,
  requested: { modelProvider?: string; modelId?: string },
  current: { modelProvider: string; modelId: string },
): ModelChoice {
  const providerId = mode === 'byok' ? (requested.modelProvider ?? current.modelProvider) : managedProvider;
  const modelId = requested.modelId ?? current.modelId;
  if (!providerId) throw invalid('modelProvider is required in byok mode.');
  const provider = catalog.provider(providerId);
  if (!provider) {
    throw invalid(
      `Unknown model provider "${providerId}". The server's model catalog offers: ${catalog.providers.map((p) => p.id).join(', ')}.`,
      { providers: catalog.providers.map((p) => p.id) },
    );
  }
  if (!modelId) throw invalid('modelId is required.');
  if (!provider.models.includes(modelId)) {
    const hint =
      requested.modelProvider && !requested.modelId ? ' Send a modelId offered by the new provider as well.' : '';
    throw invalid(
      `Model "${modelId}" is not offered by provider "${providerId}".${hint} The server's model catalog lists the provider's models in details.models.`,
      { provider: providerId, models: provider.models },
    );
  }
  return { modelProvider: providerId, modelId };
}
