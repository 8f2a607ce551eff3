// The API's request and response bodies as TypeScript types, derived from the TypeBox schemas the
// routes validate with, for clients in this repository (the user CLI) to import type-only.
import type { Static } from 'typebox';
import type { ChatCompletion, ModelList } from './chat/schemas.js';
import type { DeleteResult, PurchaseResult } from './deployments/schemas/assistants.js';
import type { StatusViewSchema } from './deployments/schemas/deployment.js';
import type { CreatedKey, KeyView } from './accounts/schemas/accounts.js';

export type { DeploymentRecordBody as DeploymentRecord } from './deployments/schemas/deployment.js';
export type { ActivateInput, PurchaseInput, RedeployInput, UpdateInput } from './deployments/schemas/assistants.js';
export type StatusView = Static<typeof StatusViewSchema>;
export type PurchaseResultBody = Static<typeof PurchaseResult>;
export type DeleteResultBody = Static<typeof DeleteResult>;
export type ChatCompletionBody = Static<typeof ChatCompletion>;
export type ModelListBody = Static<typeof ModelList>;
export type ApiKeyView = Static<typeof KeyView>;
export type CreatedApiKey = Static<typeof CreatedKey>;
