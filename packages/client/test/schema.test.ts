// The committed schema.ts must be what `npm run generate:client` writes from today's routes: a route
// (path, body, answer) that changes without regenerating fails here, naming the command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { liveOpenApiDocument } from '../../../scripts/write-openapi.js';
import { CLIENT_SCHEMA_FILE, clientSchemaSource } from '../../../scripts/generate-client.js';

test('the committed client schema matches the live OpenAPI document', async () => {
  const doc = await liveOpenApiDocument();
  const committed = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
  assert.ok(
    committed === (await clientSchemaSource(doc)),
    'packages/client/src/schema.ts is stale: run `npm run generate:client` and commit the result',
  );

  // The comparison can fail: one route less makes a different file.
  const paths = { ...(doc.paths as Record<string, unknown>) };
  delete paths['/api/v1/assistants/{deploymentId}/usage'];
  assert.notEqual(await clientSchemaSource({ ...doc, paths }), committed);
});
