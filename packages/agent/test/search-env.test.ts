// Serve mode (dedicated Kubernetes workers) learns the search route and its credential from the
// environment the control plane's manifest sets; a half-set pair stops start-up naming the variable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentConfigError, loadServeConfig } from '../src/config/env.js';

const base = {
  GATEWAY_TOKEN: 'gw-0123456789abcdef',
  MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
  MODEL_ID: 'm',
  MODEL_API_KEY: 'k',
};

test('SEARCH_GATEWAY_URL and SEARCH_GATEWAY_CREDENTIAL become the web_search target', () => {
  assert.equal(loadServeConfig(base).agent.search, undefined);
  const url = 'http://cp:8080/gateway/v1/search';
  assert.deepEqual(
    loadServeConfig({ ...base, SEARCH_GATEWAY_URL: url, SEARCH_GATEWAY_CREDENTIAL: 'bgw_cred' }).agent.search,
    {
      url,
      credential: 'bgw_cred',
    },
  );
  assert.throws(() => loadServeConfig({ ...base, SEARCH_GATEWAY_URL: url }), /SEARCH_GATEWAY_CREDENTIAL/);
  assert.throws(
    () => loadServeConfig({ ...base, SEARCH_GATEWAY_URL: 'ftp://x', SEARCH_GATEWAY_CREDENTIAL: 'c' }),
    AgentConfigError,
  );
});
